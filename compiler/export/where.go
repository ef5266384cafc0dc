package export

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/model"
)

// Declared is what the operator's file says of a server an export names
// by its flags (not by --provider): the provider as the spec will name
// it, and the file.
type Declared struct {
	Provider model.Provider // where, named as the operator's file names it
	In       string         // the operator's file declaring it, "" if none does
	File     *compiler.OperatorFile
	// Note says, when the file declares the server several times, that
	// the spec names a new provider; "" otherwise.
	Note string
}

// Settle settles which provider of the operator's file the spec names
// for where, a server given by flags of kind: the one declaring that
// server (where gets its name and dns address), else kind's name. The
// file is the one a run would read from here, or with out, from beside
// the file written.
func Settle(kind string, where model.Provider, out string) Declared {
	where.Name = kind // the name the printed site.cue lines give it
	found, config, read := declaredAs(where, out)
	d := Declared{Provider: where, File: read}
	switch len(found) {
	case 1:
		p := found[0]
		d.Provider.Name, d.In = p.Name, config
		if p.PowerDNS != nil && where.PowerDNS.DNSAddr == "" {
			// Where adopting checks what the server serves, as apply
			// would for that provider.
			pd := *where.PowerDNS
			pd.DNSAddr = p.PowerDNS.DNSAddr
			d.Provider.PowerDNS = &pd
		}
	case 0:
	default:
		names := make([]string, len(found))
		for i, p := range found {
			names[i] = p.Name
		}
		slices.Sort(names)
		d.Note = fmt.Sprintf("%s declares this server as %d providers (%s); the spec names a new one, %s: name the one you mean in both", config, len(found), strings.Join(names, ", "), where.Name)
	}
	return d
}

// declaredAs finds the operator's file a run would read from here (or,
// with out, from beside the file written) and in it the providers
// that are where: the same kind at the same address (for PowerDNS the
// url and server id, for Cloudflare the API url). With exactly one, the
// exported spec names it and the lines for site.cue only grant it,
// rather than declaring the server again under its kind's name; with
// none (or no file, or one that does not load) they declare it; with
// several (two Cloudflare accounts) the caller cannot choose. read is
// the file as read, nil without one.
func declaredAs(where model.Provider, out string) (found []model.Provider, config string, read *compiler.OperatorFile) {
	var paths []string
	if out != "" {
		paths = []string{out}
	}
	config, err := compiler.FindConfig("", paths)
	if err != nil {
		return nil, "", nil
	}
	src, err := os.ReadFile(config)
	if err != nil {
		return nil, "", nil
	}
	read, err = compiler.ReadOperatorFile(config, src)
	if err != nil {
		return nil, "", nil
	}
	for _, p := range read.Providers() {
		if sameServer(p, where) {
			found = append(found, p)
		}
	}
	return found, config, read
}

// sameServer reports whether a and b name the same API of one kind.
func sameServer(a, b model.Provider) bool {
	url := model.ServerURL
	server := func(s string) string { return cmp.Or(s, "localhost") }
	switch {
	case a.PowerDNS != nil && b.PowerDNS != nil:
		base := func(p *model.PowerDNS) string { return url(model.PowerDNSBase(p.URL)) }
		return base(a.PowerDNS) == base(b.PowerDNS) && server(a.PowerDNS.Server) == server(b.PowerDNS.Server)
	case a.Cloudflare != nil && b.Cloudflare != nil:
		return url(a.Cloudflare.APIURL) == url(b.Cloudflare.APIURL)
	}
	return false
}

// WriteFile writes src to path; without force the file must not exist
// when it is created (O_EXCL), so a file that appeared since the check
// before the read is not replaced either.
func WriteFile(path string, src []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("--out %s appeared while the zone was read; nothing was marked: choose a new file, or add --force to replace it", path)
	}
	if err != nil {
		return fmt.Errorf("write the spec: %w", err)
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return fmt.Errorf("write the spec %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the spec %s: %w", path, err)
	}
	return nil
}

// ZoneFileNames names the file site export --all writes for each of
// zones in dir, each named for its zone without the trailing dot (a "/",
// in an RFC 2317 block's zone, becomes "_", so each stays one name in
// dir): ZONE.zone for a BIND master file; for a spec ZONE/TENANT.cue,
// since a tenant file is named after its tenant and one file holds
// each zone's spec, vetted on its own.
func ZoneFileNames(dir string, zones []string, format, tenant string) []string {
	out := make([]string, len(zones))
	for i, z := range zones {
		name := strings.ReplaceAll(strings.TrimSuffix(z, "."), "/", "_")
		if format == "zone" {
			out[i] = filepath.Join(dir, name+".zone")
		} else {
			out[i] = filepath.Join(dir, name, tenant+".cue")
		}
	}
	return out
}

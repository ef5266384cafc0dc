package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/model"
)

func init() { register(newExportCmd) }

// exportSubcommands holds one constructor per provider that site export
// can read; each provider's file appends its own in init
// (export_powerdns below, export_cloudflare.go).
var exportSubcommands = []func() *cobra.Command{newExportPowerDNSCmd}

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export PROVIDER ...",
		Short: "Write an existing zone as a tenant spec, to adopt it",
		Long: `export reads a live zone and writes a tenant spec (CUE) that wants
exactly what the zone serves: it passes site vet. Records the language
cannot say, and those site.cue leaves to another tenant (at or below a
name it grants them, beyond the delegation; at an address of an RFC 2317
block it grants them, beyond the CNAME into the block; or a DNAME or
wildcard answering for such a name from above), are left out, listed on
stderr, and never touched by site.

Before it writes or marks anything, export vets the spec as site vet
of --out would: with the operator's site.cue (found as site vet finds
it, plus the lines export prints while it does not grant the tenant)
and the tenant files beside --out (none without --out). When vet
refuses it (in a zone holding another tenant's name, an NS at the
apex or at a cut above that name naming servers site.cue does not
list for the provider; a delegation of another tenant's zone naming
servers that zone does not), export writes nothing, marks nothing,
exits 1 and prints vet's
messages: do what they ask (on the server, in site.cue, or in the
other tenant's file), then export again. vet's warnings (a DS no NS
delegates) are printed on stderr as warning: lines, and the spec is
written all the same. The lines for site.cue are printed only while it
lacks them: the provider's declaration, or the tenant's grant of the
zone (and --domain) and the provider.

--format zone writes the same records as a BIND master file in place of
the spec ($ORIGIN, a line per record, names relative to the zone), and
no site.cue lines; site import bind reads it back to the same spec. It
cannot --adopt.

export only reads: it changes nothing on the server unless --adopt is
given, and --out never replaces an existing file unless --force is.
With --adopt, every exported record gets the tenant's owner marker, so
site diff says No changes; without it, site diff shows each record as
"= adopt" until the first site apply (site disown removes markers).

  site export powerdns --url http://127.0.0.1:8081 --zone example.org --tenant office1
  site export cloudflare --zone example.net --tenant web --out tenants/web.cue --adopt

Exit codes: 0 written (and marked, with --adopt), 1 an error (nothing
is marked unless the spec was written first).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return withCode(exitError, fmt.Errorf("site export cannot read from %q: name one of %s", args[0], strings.Join(exportProviders(cmd), ", ")))
			}
			return withCode(exitError, fmt.Errorf("name the provider to read from: %s", strings.Join(exportProviders(cmd), ", ")))
		},
	}
	for _, sub := range exportSubcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}

func exportProviders(cmd *cobra.Command) []string {
	var out []string
	for _, c := range cmd.Commands() {
		out = append(out, c.Name())
	}
	return out
}

func newExportPowerDNSCmd() *cobra.Command {
	var url, server, keyEnv string
	req := exportRequest{provider: "powerdns"}
	cmd := &cobra.Command{
		Use:   "powerdns --url URL --zone ZONE --tenant NAME [--api-key-env PDNS_API_KEY] [--out FILE [--force]] [--adopt]",
		Short: "Write a PowerDNS zone as a tenant spec (read-only unless --adopt)",
		Long: `export powerdns reads ZONE from the PowerDNS HTTP API at URL with one
GET and writes tenant NAME's spec for it to FILE (stdout when none); an
existing FILE is refused unless --force.

It changes nothing on the server unless --adopt is given. With --adopt
it then adopts the zone: every exported rrset gets the tenant's owner
marker (an rrset comment; what the server serves does not change), in
one PATCH, so site diff says No changes and site apply may later update
or delete these records. Without it, site diff shows each rrset as
"= adopt" until the first site apply. site disown removes the markers.

Left out, and so never touched by site: record types the language
cannot say (SOA, AFSDB, ...), rrsets with disabled records,
rrsets another site tenant owns, and the apex NS (it came with the zone;
declare it to manage it).

The API key is read from the environment variable --api-key-env names,
and the spec refers to it by that name; its value is never printed.

  site export powerdns --url http://127.0.0.1:8081 --zone example.org \
      --tenant office1 --out tenants/office1.cue --adopt`,
		Args: noArgs("give the zone with --zone and the server with --url"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.required = []struct{ name, v string }{{"--url", url}, {"--zone", req.zone}, {"--tenant", req.tenant}, {"--api-key-env", keyEnv}}
			req.where = model.Provider{PowerDNS: &model.PowerDNS{URL: url, Server: server, APIKey: model.Credential{Env: keyEnv}}}
			return exportZone(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "PowerDNS HTTP API base URL, e.g. http://127.0.0.1:8081")
	f.StringVar(&server, "server", "localhost", "PowerDNS server id")
	f.StringVar(&keyEnv, "api-key-env", "PDNS_API_KEY", "environment variable holding the API key (the spec names it, never its value)")
	req.addFlags(cmd, "example.org", "rrsets")
	return cmd
}

// exportRequest is what every `site export PROVIDER` gathers from its
// flags; exportZone does the rest the same way for every provider.
type exportRequest struct {
	provider     string // runBackends.providers key
	zone, tenant string
	domain, out  string
	adopt, force bool
	format       string // cue or zone
	required     []struct{ name, v string }
	where        model.Provider // the provider flags, credentials by name
	declaredIn   string         // the site.cue that declares where as where.Name, if one does
}

// addFlags defines the flags every provider's export has; zoneExample
// and what ("rrsets", "records") speak the provider's language.
func (r *exportRequest) addFlags(cmd *cobra.Command, zoneExample, what string) {
	f := cmd.Flags()
	f.StringVar(&r.zone, "zone", "", "zone to export, e.g. "+zoneExample)
	f.StringVar(&r.tenant, "tenant", "", "tenant the records belong to")
	f.StringVar(&r.domain, "domain", "", "the tenant's domain (default: the zone)")
	f.StringVar(&r.out, "out", "", "write the spec to FILE instead of stdout; an existing FILE is refused unless --force")
	f.BoolVar(&r.force, "force", false, "let --out replace an existing file")
	f.BoolVar(&r.adopt, "adopt", false, "also put the tenant's owner marker on the exported "+what+" (the only change export makes on the server)")
	f.StringVar(&r.format, "format", "cue", "cue: the tenant spec; zone: the same records as a BIND master file")
}

// exportZone reads the live zone, writes the tenant spec, and (with
// --adopt) marks what it exported as the tenant's.
func exportZone(cmd *cobra.Command, req exportRequest) error {
	for _, f := range req.required {
		if f.v == "" {
			return withCode(exitError, fmt.Errorf("%s is required", f.name))
		}
	}
	switch {
	case req.format != "cue" && req.format != "zone":
		return withCode(exitError, fmt.Errorf("--format %q: give cue (the tenant spec) or zone (a BIND master file)", req.format))
	case req.format == "zone" && req.adopt:
		return withCode(exitError, fmt.Errorf("--adopt marks records for the tenant spec export writes; --format zone writes none: export the spec to adopt"))
	}
	// Before any request: a file that is there is someone's spec (its
	// VMs, networks, comments), and export would replace all of it.
	if req.out != "" && !req.force {
		if _, err := os.Lstat(req.out); err == nil {
			return withCode(exitError, fmt.Errorf("--out %s exists; export writes a whole tenant file and would replace it: choose a new file, or add --force to replace it", req.out))
		}
	}
	run := backends.NewRun()
	bk := openBackends(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	x, _ := bk.providers[req.provider].(backends.ZoneExporter)
	if x == nil {
		return withCode(exitError, fmt.Errorf("this build of site has no %s backend that can export", req.provider))
	}
	ctx := cmd.Context()
	req.where.Name = req.provider // the name the printed site.cue lines give it
	stderr := cmd.ErrOrStderr()
	found, config, read := declaredAs(req.where, req.out)
	switch len(found) {
	case 1:
		p := found[0]
		req.where.Name, req.declaredIn = p.Name, config
		if p.PowerDNS != nil && req.where.PowerDNS.DNSAddr == "" {
			// Where adopting checks what the server serves, as apply
			// would for that provider.
			req.where.PowerDNS.DNSAddr = p.PowerDNS.DNSAddr
		}
	case 0:
	default:
		names := make([]string, len(found))
		for i, p := range found {
			names[i] = p.Name
		}
		slices.Sort(names)
		fmt.Fprintf(stderr, "note: %s declares this server as %d providers (%s); the spec names a new one, %s: name the one you mean in both\n", config, len(found), strings.Join(names, ", "), req.where.Name)
	}
	declared := req.declaredIn != ""
	a, err := export.Read(ctx, x, export.Request{Tenant: req.tenant, Zone: req.zone, Domain: req.domain, Provider: req.where, ProviderDeclared: declared, Operator: read, Out: req.out}, run)
	if err != nil {
		return withCode(exitError, err)
	}
	if req.format == "zone" {
		if a.Source, err = a.ZoneFile(); err != nil {
			return withCode(exitError, err)
		}
	}
	switch {
	case req.format == "zone":
	case len(a.Site) == 0:
		fmt.Fprintf(stderr, "%s grants tenant %s zone %s on provider %s already; it needs no lines\n", req.declaredIn, req.tenant, a.Zone.Name, req.where.Name)
	case declared:
		fmt.Fprintf(stderr, "%s declares this server as provider %s; it needs these lines to grant it:\n\n%s\n", req.declaredIn, req.where.Name, a.Site)
	default:
		fmt.Fprintf(stderr, "the operator's site.cue needs these lines for it:\n\n%s\n", a.Site)
	}
	for _, s := range a.Skipped {
		fmt.Fprintln(stderr, "left out:", s)
	}
	for _, w := range a.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if req.out == "" {
		if _, err := cmd.OutOrStdout().Write(a.Source); err != nil {
			return withCode(exitError, err)
		}
	} else {
		if err := writeExported(req.out, a.Source, req.force); err != nil {
			return withCode(exitError, err)
		}
		fmt.Fprintf(stderr, "wrote %s: %d RRsets of zone %s for tenant %s\n", req.out, len(a.Zone.RRsets), a.Zone.Name, req.tenant)
	}
	if req.format == "zone" {
		return nil // read-only: --adopt is refused above
	}
	if !req.adopt {
		// Some may carry the tenant's marker already (an earlier export);
		// the snapshot does not say which, so no count is given.
		fmt.Fprintf(stderr, "nothing marked on the server (read-only; --adopt marks): site diff shows each RRset not yet marked for tenant %s as adopt until site apply marks it\n", req.tenant)
		return nil
	}
	n, err := a.Mark(ctx)
	if err != nil {
		return withCode(exitError, err)
	}
	fmt.Fprintf(stderr, "marked %d RRsets as owned by tenant %s (comments only; served data unchanged)\n", n, req.tenant)
	return nil
}

// declaredAs finds the operator's file a run would read from here (or,
// with --out, from beside the file written) and in it the providers
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
		return url(a.PowerDNS.URL) == url(b.PowerDNS.URL) && server(a.PowerDNS.Server) == server(b.PowerDNS.Server)
	case a.Cloudflare != nil && b.Cloudflare != nil:
		return url(a.Cloudflare.APIURL) == url(b.Cloudflare.APIURL)
	}
	return false
}

// writeExported writes src to path; without force the file must not exist
// when it is created (O_EXCL), so a file that appeared since the check
// before the read is not replaced either.
func writeExported(path string, src []byte, force bool) error {
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

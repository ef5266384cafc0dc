package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/specgen"
)

// A workspace is a directory holding a site.cue and tenant files that
// site runs in, and the zones those files write.
type workspace struct {
	dir   string
	zones []string // canonical names, trailing dot
}

// bench is one run of the table: the server, the binaries, the sizes.
type bench struct {
	srv  *pdnstest.Server
	site string // the site binary
	// before is another build of site the tenants case measures one
	// tenant's diffs with too ("" for none): a before and after.
	before string
	cue    string // the cue CLI; "" when not found
	dir    string // everything generated lives below it
	cache  string // $SITE_CACHE_DIR for every site run
	runs   int
	sizes  sizes
}

// sizes are the inputs of the cases; the defaults are issue 13's.
type sizes struct {
	big, bigger         int // records in one zone
	zones, zoneRecords  int // many zones
	tenants, vetRecords int // site vet against cue vet
	// many tenants of many zones
	bigTenants, tenantZones, tenantRecords int
}

// tenant numbers of the generated workspaces, apart so that no two
// workspaces write the same zone in the one server.
const (
	tenantBig    = 1001
	tenantBigger = 1002
	tenantZones  = 2000
	tenantMany   = 3000 // and on: the tenants case
)

func (b *bench) pdns() specgen.PowerDNS {
	return specgen.PowerDNS{URL: b.srv.DirectURL, DNS: b.srv.DNSAddr}
}

// oneZone writes a workspace of tenant i with one zone of n records.
func (b *bench) oneZone(name string, i, n int) (workspace, error) {
	w := workspace{dir: filepath.Join(b.dir, name), zones: []string{fmt.Sprintf("t%04d.example.test.", i)}}
	return w, writeFiles(w.dir, map[string][]byte{
		"site.cue":                  specgen.SiteFor(b.pdns(), i, 1),
		fmt.Sprintf("t%04d.cue", i): specgen.Tenant(i, n),
	})
}

// zonesOneFile writes one tenant with many zones in one file.
func (b *bench) zonesOneFile(name string) (workspace, error) {
	w := workspace{dir: filepath.Join(b.dir, name)}
	for z := range b.sizes.zones {
		w.zones = append(w.zones, fmt.Sprintf("z%03d.t%04d.example.test.", z, tenantZones))
	}
	return w, writeFiles(w.dir, map[string][]byte{
		"site.cue":                            specgen.SiteForZones(b.pdns(), tenantZones, b.sizes.zones),
		fmt.Sprintf("t%04d.cue", tenantZones): specgen.Zones(tenantZones, b.sizes.zones, b.sizes.zoneRecords),
	})
}

// zonesManyFiles writes the same number of zones as many tenants, one
// file and one zone each.
func (b *bench) zonesManyFiles(name string) (workspace, error) {
	w := workspace{dir: filepath.Join(b.dir, name)}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return w, err
	}
	if _, _, err := specgen.Write(w.dir, b.sizes.zones, b.sizes.zoneRecords); err != nil {
		return w, err
	}
	for i := range b.sizes.zones {
		w.zones = append(w.zones, fmt.Sprintf("t%04d.example.test.", i))
	}
	return w, writeFiles(w.dir, map[string][]byte{"site.cue": specgen.SiteFor(b.pdns(), 0, b.sizes.zones)})
}

func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// requestTimeout is the --request-timeout of every site run. A bench
// measures how long a request takes: site's default budget of 30 s per
// request, tries included, turned a PowerDNS slowed by a busy machine
// (a 50,000-record GET, a third of a 10,000-record PATCH) into a failed
// table instead of a slow row.
const requestTimeout = "10m"

// siteRun is site with args in w, against the bench's server and cache.
// Its DNS steps only: generated tenants also declare VMs.
func (b *bench) siteRun(w workspace, args ...string) command {
	return command{
		env:  []string{"PDNS_API_KEY=" + b.srv.APIKey, "SITE_CACHE_DIR=" + b.cache, "NO_COLOR=1"},
		dir:  w.dir,
		name: b.site,
		args: append(args, "--request-timeout", requestTimeout, "--only", "dns", "."),
	}
}

// diff is a diff that must find w converged (exit 0 with
// --detailed-exitcode): a diff that plans changes measures the wrong
// thing.
func (b *bench) diff(w workspace, extra ...string) command {
	return b.siteRun(w, append([]string{"diff", "--detailed-exitcode"}, extra...)...)
}

func (b *bench) apply(w workspace) command { return b.siteRun(w, "apply") }

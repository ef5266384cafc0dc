package leftovers

import (
	"context"
	"maps"
	"slices"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// Input is what the specs say: every tenant loaded, and the providers
// and hosts the operator's file declares, by name.
type Input struct {
	Tenants   []*model.Tenant
	Providers map[string]model.Provider
	Hosts     map[string]string // name -> libvirt URI
	// Granted reports whether the operator's file grants a tenant: one
	// granted whose file was not loaded is not known to be gone, and
	// what its markers hold is not judged. nil grants none.
	Granted func(tenant string) bool
	// Grantees are the tenants Granted grants, by name: what names no
	// tenant (a whole seed, by its VM's name) may be the VM of one of
	// them that was not loaded, and is then not judged.
	Grantees []string
	// Images are the base images site.cue declares on each host (by
	// name), "pool/volume" -> image: site uploads them again.
	Images map[string]map[string]*model.Image
	// NoTenantFile says no tenant file was loaded (every one removed):
	// everything is judged against site.cue alone, and the report says so.
	NoTenantFile bool
}

// Finder looks at the live systems through this build's backends.
type Finder struct {
	// DNS reads a provider's zones and markers, by provider kind
	// (model.Provider.Kind); a kind missing here is reported unread.
	DNS map[string]backends.MarkReader
	// Hosts lists the owner elements on a libvirt host; nil when this
	// build has no libvirt backend, and NoHosts then says why and how to
	// get a build with one, in each host's report.
	Hosts   backends.OwnerLister
	NoHosts error
	// Prepare reads what p's credential needs into Run (a secret from a
	// Vault store) before p is listed; an error leaves p unread. nil
	// prepares nothing.
	Prepare func(ctx context.Context, p model.Provider) error
	// Run carries the credentials (read from the environment, or by the
	// caller from a Vault store into the run) and the request hooks.
	Run *backends.Run
	// Command is the site command line the report prints for sub and
	// args, ready to paste (quoted, --config when the run had one).
	Command func(sub string, args ...string) string
}

// Find looks at every provider and host of in, in name order. What it
// cannot read is said in the report (Error), never taken for nothing
// left over.
func (f *Finder) Find(ctx context.Context, in Input) *Report {
	r := &Report{FormatVersion: FormatVersion, NoTenantFile: in.NoTenantFile, Providers: []ProviderReport{}, Hosts: []HostReport{}}
	zones := declaredZones(in)
	seen := map[string]string{} // endpoint -> the provider looked at there
	var lists []*providerList
	for _, name := range slices.Sorted(maps.Keys(in.Providers)) {
		p := in.Providers[name]
		key := endpoint(p)
		if first, ok := seen[key]; ok {
			lists = append(lists, &providerList{report: ProviderReport{Name: name, Kind: p.Kind(), SameAs: first}})
			continue
		}
		seen[key] = name
		lists = append(lists, f.list(ctx, p))
	}
	// Every provider is listed before any zone is read: a zone declared
	// through one provider is known by its id on another that reaches
	// the same account (two Cloudflare tokens).
	zones.noteIDs(lists)
	for _, l := range lists {
		rep := withholdGranted(f.read(ctx, l, zones, loaded(in)), in, loaded(in))
		if l.p.Cloudflare != nil {
			rep = withholdUnlisted(rep, in, lists)
		}
		r.Providers = append(r.Providers, rep)
	}
	r.Hosts = f.hosts(ctx, in)
	return r
}

// loaded is the names of the tenants loaded.
func loaded(in Input) map[string]bool {
	out := map[string]bool{}
	for _, t := range in.Tenants {
		out[t.Name] = true
	}
	return out
}

// maxNames is how many marked names (or volumes) a zone's owner lists;
// the count says how many there are, site disown lists them all.
const maxNames = 3

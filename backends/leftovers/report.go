// Package leftovers finds what site marked that no spec declares any
// more: the owner markers in zones no tenant declares on the provider
// that holds them (a removed tenant's zones, a zone handed away, the
// copy a zone leaves on a provider it moved off), and the domains and
// networks on a libvirt host whose owner element names a tenant that
// declares nothing of that kind there any more (or no tenant file at
// all), and the uploads into a host's pools that did not finish, which
// site's own markers prove, and that no run takes up again. No run of
// diff or apply looks at these, as looking costs reads on every run;
// site leftovers looks on demand, and only reads.
package leftovers

// FormatVersion is the version of the JSON report; it changes only when
// a field changes meaning or goes away.
const FormatVersion = 1

// Report is what site leftovers found.
type Report struct {
	FormatVersion int `json:"format_version"`
	// NoTenantFile: no tenant file was loaded, so no tenant declares
	// anything: everything site marked is reported, what a tenant
	// site.cue still grants marked as not judged.
	NoTenantFile bool             `json:"no_tenant_file,omitempty"`
	Providers    []ProviderReport `json:"providers"`
	Hosts        []HostReport     `json:"hosts"`
}

// ProviderReport is one DNS provider site.cue declares.
type ProviderReport struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // powerdns or cloudflare
	// SameAs names the provider declared first with the same server (or
	// account): it was looked at there, so not twice.
	SameAs string `json:"same_as,omitempty"`
	// Error says why the provider's zones could not be listed: nothing
	// is known of them.
	Error string `json:"error,omitempty"`
	// Listed counts the zones it holds; Read those of them no tenant
	// declares on it, which were read.
	Listed int          `json:"listed"`
	Read   int          `json:"read"`
	Zones  []ZoneReport `json:"zones,omitempty"`
}

// ZoneReport is one zone no loaded tenant declares on its provider that
// holds site's owner markers, or that could not be read.
type ZoneReport struct {
	Zone string `json:"zone"`
	// DeclaredOn lists where loaded tenants declare the zone instead, as
	// "tenant T on provider P": the copy a moved zone left.
	DeclaredOn []string `json:"declared_on,omitempty"`
	Error      string   `json:"error,omitempty"`
	// NotJudged says why the zone, though read, is not judged left
	// over (its markers name a tenant site.cue grants whose file was
	// not loaded); then Remove is empty.
	NotJudged string  `json:"not_judged,omitempty"`
	Owners    []Owner `json:"owners,omitempty"`
	// Remove is the command that takes the markers off (the records
	// stay, foreign to every tenant).
	Remove string `json:"remove,omitempty"`
}

// Owner is the markers of one tenant in a zone.
type Owner struct {
	Tenant string `json:"tenant"`
	// Loaded: a tenant file of that name was loaded (it declares
	// something, but not this zone here).
	Loaded bool `json:"loaded"`
	Count  int  `json:"count"`
	// Names are the first few marked "NAME TYPE", sorted.
	Names []string `json:"names"`
}

// HostReport is one libvirt host site.cue declares.
type HostReport struct {
	Name   string `json:"name"`
	URI    string `json:"uri"`
	SameAs string `json:"same_as,omitempty"`
	Error  string `json:"error,omitempty"`
	// Listed counts the domains and networks carrying an owner element.
	Listed    int        `json:"listed"`
	Leftovers []Resource `json:"leftovers,omitempty"`
	// PoolsError says why the host's storage pools could not be listed
	// (its domains and networks were): nothing is known of the uploads
	// they hold.
	PoolsError string `json:"pools_error,omitempty"`
	// Pools are the host's storage pools that hold uploads left over,
	// or whose volumes could not be listed, by name.
	Pools []PoolReport `json:"pools,omitempty"`
}

// PoolReport is one storage pool of a host.
type PoolReport struct {
	Pool string `json:"pool"`
	// Error says why the pool's volumes could not be listed: nothing is
	// known of them.
	Error   string         `json:"error,omitempty"`
	Uploads []UploadReport `json:"uploads,omitempty"`
	Seeds   []SeedReport   `json:"seeds,omitempty"`
}

// SeedReport is a whole cloud-init seed whose bytes prove site made it,
// that no domain on the host has or lists and no loaded tenant declares
// a VM of its name for there: the domain it was made for was undefined
// (by hand, or by a tool other than site).
type SeedReport struct {
	Volume string `json:"volume"`
	VM     string `json:"vm"` // the VM it was made for
	// NotJudged says why it is not judged left over (a tenant granted
	// in site.cue was not loaded, or a host that could not be read
	// declares its VM); then Remove is empty.
	NotJudged string   `json:"not_judged,omitempty"`
	Remove    []string `json:"remove"`
}

// UploadReport is an upload into a volume that did not finish (a
// killed run's), which site's own markers prove site began, and which
// no run of diff or apply takes up again: a seed whose tenant declares
// no VM on the host (or was not loaded), a seed whose marker an older
// site wrote (it names no tenant), a base image site.cue does not
// declare on the host, on any URI of the same daemon. No domain has a
// disk on it, and no owner element lists it.
type UploadReport struct {
	// Volume is "" when a hash names the markers and the pool holds no
	// volume of that hash.
	Volume  string   `json:"volume"`
	Partial bool     `json:"partial"` // the volume is there; else only markers
	Markers []string `json:"markers"`
	Seed    bool     `json:"seed"`
	// Tenant is the tenant the newest marker names, "" for none.
	Tenant string `json:"tenant,omitempty"`
	Loaded bool   `json:"loaded"`
	// Run is the run that left it; RunGone says its process is proved
	// gone, else it may still be uploading.
	Run     string `json:"run"`
	RunGone bool   `json:"run_gone"`
	// NotJudged says why it is not judged left over (its tenant is
	// granted in site.cue but its file was not loaded, or a run on a
	// host that could not be read may take it up); then Remove is
	// empty.
	NotJudged string   `json:"not_judged,omitempty"`
	Remove    []string `json:"remove"`
}

// Resource is one domain or network left over on a host.
type Resource struct {
	Kind string `json:"kind"` // domain or network
	Name string `json:"name"`
	// UUID is what Remove names it by (a name may read as another
	// domain's id or UUID to virsh).
	UUID   string `json:"uuid"`
	Tenant string `json:"tenant"`
	Loaded bool   `json:"loaded"`
	Active bool   `json:"active"`
	// Volumes are the volumes site made for a domain (pool/name), which
	// its owner element lists.
	Volumes []string `json:"volumes,omitempty"`
	// InUse says what of it another domain uses, which Remove leaves:
	// a network some domain has an interface on (then Remove is
	// empty), or a domain's volume another domain uses ("pool/name by
	// web, db").
	InUse []string `json:"in_use,omitempty"`
	// NotJudged says why it is not judged left over (its tenant is
	// granted in site.cue but its file was not loaded); then Remove is
	// empty.
	NotJudged string `json:"not_judged,omitempty"`
	// Remove are the commands that remove it by hand, in order.
	Remove []string `json:"remove"`
}

// Unread reports whether a provider, zone or host could not be read,
// or what was read could not be judged: then nothing can be said of
// it, least of all that nothing is left.
func (r *Report) Unread() bool {
	for _, p := range r.Providers {
		if p.Error != "" {
			return true
		}
		for _, z := range p.Zones {
			if z.Error != "" || z.NotJudged != "" {
				return true
			}
		}
	}
	for _, h := range r.Hosts {
		if h.Error != "" {
			return true
		}
		for _, l := range h.Leftovers {
			if l.NotJudged != "" {
				return true
			}
		}
		if h.PoolsError != "" {
			return true
		}
		for _, p := range h.Pools {
			if p.Error != "" {
				return true
			}
			for _, u := range p.Uploads {
				if u.NotJudged != "" {
					return true
				}
			}
			for _, s := range p.Seeds {
				if s.NotJudged != "" {
					return true
				}
			}
		}
	}
	return false
}

// Found reports whether anything is left over.
func (r *Report) Found() bool {
	for _, p := range r.Providers {
		for _, z := range p.Zones {
			if len(z.Owners) > 0 && z.NotJudged == "" {
				return true
			}
		}
	}
	for _, h := range r.Hosts {
		for _, l := range h.Leftovers {
			if l.NotJudged == "" {
				return true
			}
		}
		for _, p := range h.Pools {
			for _, u := range p.Uploads {
				if u.NotJudged == "" {
					return true
				}
			}
			for _, s := range p.Seeds {
				if s.NotJudged == "" {
					return true
				}
			}
		}
	}
	return false
}

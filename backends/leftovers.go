package backends

import (
	"context"

	"github.com/site-tools/site/compiler/model"
)

// ListedZone is one zone a DNS provider lists: its canonical name and
// the provider's id for it (Cloudflare's zone id; the name again for
// PowerDNS).
type ListedZone struct {
	Name, ID string
}

// MarkReader is a DNS backend that can tell site leftovers which zones a
// provider holds and which of site's owner markers one of them carries:
// one listing per provider, then one read per zone asked about, so the
// zones the specs declare cost nothing.
type MarkReader interface {
	// ListZones lists every zone on p that its credential can see.
	ListZones(ctx context.Context, p model.Provider, run *Run) ([]ListedZone, error)
	// ZoneMarks reads zone z, one of ListZones' answer, and returns the
	// owner markers on it, sorted (SortMarks).
	ZoneMarks(ctx context.Context, p model.Provider, z ListedZone, run *Run) ([]Mark, error)
}

// Owned is a domain or network on a libvirt host that carries site's
// owner element.
type Owned struct {
	Kind string // OwnedDomain or OwnedNetwork
	Name string
	// UUID is the domain's (network's) UUID: what a printed virsh
	// command names it by, as virsh finds a name that reads as an id
	// or a UUID by that first, which may be another domain.
	UUID   string
	Tenant string // as the owner element says it: foreign text
	Active bool   // a running domain, an active network
	// Volumes are the volumes site made for a domain, as its owner
	// element lists them.
	Volumes []Volume
	// UsedBy, for a network, names the other domains whose live or
	// persistent definition has an interface on it.
	UsedBy []string
}

// Volume is a storage volume on a libvirt host.
type Volume struct {
	Pool, Name string
	// UsedBy names the other domains whose live or persistent
	// definition uses it, when it is a volume Owned lists.
	UsedBy []string
}

func (v Volume) String() string { return v.Pool + "/" + v.Name }

// The kinds of Owned.
const (
	OwnedDomain  = "domain"
	OwnedNetwork = "network"
)

// OwnerLister is a backend that lists, read-only, what on a host
// carries site's owner element, whichever tenant it names (site
// leftovers).
type OwnerLister interface {
	ListOwned(ctx context.Context, host string) ([]Owned, error)
	// ListLeftUploads lists, for every pool of host, the uploads that
	// did not finish and that site's own markers prove it began, and the
	// whole seeds their bytes prove site made, leaving out any a domain
	// has a disk on or an owner element lists.
	ListLeftUploads(ctx context.Context, host string) ([]PoolUploads, error)
	// Opens is the URI site connects to for host: host itself, unless
	// the environment maps it to another (a test's or demo's daemon).
	// A command printed for the reader names that one.
	Opens(host string) string
}

// PoolUploads is what one storage pool holds of uploads that did not
// finish; Error says why its volumes could not be listed (a pool that
// is not active), and then nothing is known of them.
type PoolUploads struct {
	Pool string
	// UUID is the pool's: a pool listed under two URIs of one daemon
	// is known as one by it.
	UUID  string
	Error string
	Left  []LeftUpload
	// Seeds are the whole cloud-init seeds no domain has a disk on or
	// an owner element lists (the domain they were made for undefined
	// by hand), which their bytes prove site made.
	Seeds []LeftSeed
}

// LeftSeed is a whole cloud-init seed in a pool that no domain has and
// no owner element lists: built again from the files it holds, it is
// that image byte for byte, which only site's seed builder makes.
type LeftSeed struct {
	Pool, Volume string
	VM           string // the hostname it was made for: its VM's name
}

// LeftUpload is an upload into a volume (a base image, a cloud-init
// seed) that did not finish: a killed or disconnected run left its
// markers, volumes ".NAME.uploading[.N]" whose note, written by site,
// names the run. No domain has a disk on the volume or a marker, and
// no owner element lists them.
type LeftUpload struct {
	Pool string
	// Volume is the volume uploaded into; "" when the marker is named
	// by a hash (a long name) and no volume of the pool has that name.
	Volume string
	// Partial: the volume is there, holding part of the upload; else
	// the run was killed before it made it, and only markers are left.
	Partial bool
	Markers []string // oldest first
	// Tenant is the tenant the newest note names (a seed's VM's), as
	// written: foreign text. "" for a base image of site.cue's, and in
	// a marker an older site wrote.
	Tenant string
	Seed   bool   // Volume has the name site keeps for a seed
	Run    string // the run the newest note names, for a person
	// RunGone: the note proves that run's process is gone (it ran on
	// this machine); else it may be uploading still.
	RunGone bool
}

package leftovers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
)

// uploadJudging is what judging a pool's uploads needs of every host
// listed: what no run takes up on one host may be what a run takes up
// on the same daemon under another URI, or on a host not read.
type uploadJudging struct {
	idx    hostIndex
	in     Input
	loaded map[string]bool
	// daemons is, for each URI listed, the URIs listed that reach the
	// same daemon, itself first (sameDaemons).
	daemons map[string][]string
	// unread is the hosts whose domains or pools could not be listed,
	// by URI.
	unread map[string]string
	byURI  map[string]*hostList
}

func newUploadJudging(idx hostIndex, in Input, lists []*hostList) uploadJudging {
	up := uploadJudging{idx: idx, in: in, loaded: loaded(in), daemons: sameDaemons(lists), unread: map[string]string{}, byURI: map[string]*hostList{}}
	for _, l := range lists {
		if l.report.SameAs != "" {
			continue
		}
		up.byURI[l.uri] = l
		if l.report.Error != "" || l.report.PoolsError != "" {
			up.unread[l.uri] = l.report.Name
		}
	}
	return up
}

// sameDaemons says, for each URI listed, which URIs listed reach the
// same daemon: those that list a storage pool, a domain or a network of
// one UUID (libvirt picks each at random, and site never sets one),
// and so on from those.
func sameDaemons(lists []*hostList) map[string][]string {
	parent := map[string]string{}
	var root func(string) string
	root = func(u string) string {
		if parent[u] == u {
			return u
		}
		return root(parent[u])
	}
	var uris []string
	first := map[string]string{} // UUID -> the URI that listed it first
	for _, l := range lists {
		if l.report.SameAs != "" {
			continue
		}
		uris = append(uris, l.uri)
		parent[l.uri] = l.uri
		var keys []string
		for _, o := range l.owned {
			if o.UUID != "" {
				keys = append(keys, o.Kind+" "+o.UUID)
			}
		}
		for _, p := range l.pools {
			if p.UUID != "" {
				keys = append(keys, "pool "+p.UUID)
			}
		}
		for _, k := range keys {
			if other, ok := first[k]; ok {
				parent[root(l.uri)] = root(other)
			} else {
				first[k] = l.uri
			}
		}
	}
	out := map[string][]string{}
	for _, u := range uris {
		out[u] = []string{u}
		for _, v := range uris {
			if v != u && root(v) == root(u) {
				out[u] = append(out[u], v)
			}
		}
	}
	return out
}

// judgePools judges the uploads left in each pool of l: the pools that
// hold one, or could not be listed, in name order.
func (f *Finder) judgePools(l *hostList, up uploadJudging) []PoolReport {
	var out []PoolReport
	for _, p := range l.pools {
		if pr := f.pool(p, l.uri, up); pr.Error != "" || len(pr.Uploads) > 0 || len(pr.Seeds) > 0 {
			out = append(out, pr)
		}
	}
	return out
}

// pool keeps the uploads left in p that no run of diff or apply takes
// up again, on uri or on any URI of the same daemon: a seed's whose
// tenant declares no VM on the host (a tenant that does has its VMs'
// runs remove it, or upload it anew), and one whose marker names no
// tenant (an older site's seed, a base image) unless site.cue declares
// it as an image on the host, whose step uploads it again. Nothing an
// owner element lists is kept. One that a tenant site.cue grants but
// whose file was not loaded may take up, or a host that could not be
// read, is reported not judged, with no command.
func (f *Finder) pool(p backends.PoolUploads, uri string, up uploadJudging) PoolReport {
	rep := PoolReport{Pool: p.Pool, Error: p.Error}
	uris := up.daemons[uri]
	for _, u := range p.Left {
		if up.ownerListed(u, uris) {
			continue
		}
		if _, taken := up.takesUp(u, uris); taken {
			continue
		}
		r := UploadReport{Volume: u.Volume, Partial: u.Partial, Markers: u.Markers, Seed: u.Seed,
			Tenant: u.Tenant, Loaded: up.loaded[u.Tenant], Run: u.Run, RunGone: u.RunGone, Remove: []string{}}
		switch why, onUnread := up.takesUpOnUnread(u); {
		case u.Tenant != "" && grantedUnloaded(up.in, up.loaded, u.Tenant):
			r.NotJudged = notJudgedWhy(u.Tenant, "upload's VM")
		case onUnread:
			r.NotJudged = why
		default:
			r.Remove = uploadRemoval(f.Hosts.Opens(uri), u)
		}
		rep.Uploads = append(rep.Uploads, r)
	}
	for _, s := range p.Seeds {
		if r, ok := f.wholeSeed(s, uri, up); ok {
			rep.Seeds = append(rep.Seeds, r)
		}
	}
	return rep
}

// wholeSeed judges a whole seed made for VM s.VM: not left over when a
// loaded tenant declares a VM of that name on one of uri's daemon's
// URIs (its next apply defines the domain again, and may take the seed
// up); not judged when one declares it on a host that could not be
// read, or when a tenant site.cue grants was not loaded (the seed names
// no tenant, and its VM may be that tenant's).
func (f *Finder) wholeSeed(s backends.LeftSeed, uri string, up uploadJudging) (SeedReport, bool) {
	for _, u := range up.daemons[uri] {
		if up.idx.vmNames[u][s.VM] {
			return SeedReport{}, false
		}
	}
	r := SeedReport{Volume: s.Volume, VM: s.VM, Remove: []string{}}
	for _, u := range slices.Sorted(maps.Keys(up.unread)) {
		if up.idx.vmNames[u][s.VM] {
			host := up.unread[u]
			r.NotJudged = fmt.Sprintf("a tenant declares VM %s on host %s, which could not be read: if that is this host under another URI, its apply takes this seed up; run site leftovers again once host %s can be read", s.VM, host, host)
			return r, true
		}
	}
	for _, t := range up.in.Grantees {
		if grantedUnloaded(up.in, up.loaded, t) {
			r.NotJudged = notJudgedWhy(t, "seed's VM")
			return r, true
		}
	}
	r.Remove = []string{virshLine(f.Hosts.Opens(uri), "vol-delete", "--pool", s.Pool, s.Volume)}
	return r, true
}

// takesUp says which declaration on one of uris has a run take u up
// again, if one does.
func (up uploadJudging) takesUp(u backends.LeftUpload, uris []string) (string, bool) {
	for _, uri := range uris {
		switch {
		case u.Tenant != "" && up.idx.vms[uri][u.Tenant]:
			return fmt.Sprintf("tenant %s declares a VM", u.Tenant), true
		case u.Tenant == "" && up.idx.images[uri][backends.Volume{Pool: u.Pool, Name: u.Volume}.String()]:
			return fmt.Sprintf("site.cue declares image %s/%s", u.Pool, u.Volume), true
		case u.Tenant == "" && u.Volume == "" && up.idx.longImageIn(uri, u.Pool):
			// its markers may be that image's, which its step uploads again
			return fmt.Sprintf("site.cue declares an image in pool %s whose markers a hash names", u.Pool), true
		}
	}
	return "", false
}

// takesUpOnUnread says why u is not judged when a run on a host that
// could not be read may take it up: that host may be u's under another
// URI.
func (up uploadJudging) takesUpOnUnread(u backends.LeftUpload) (string, bool) {
	for _, uri := range slices.Sorted(maps.Keys(up.unread)) {
		if what, ok := up.takesUp(u, []string{uri}); ok {
			host := up.unread[uri]
			return fmt.Sprintf("%s on host %s, which could not be read: if that is this host under another URI, a run there takes this upload up; run site leftovers again once host %s can be read", what, host, host), true
		}
	}
	return "", false
}

// ownerListed reports whether an owner element listed on one of uris
// names u's volume or one of its markers: that domain's, never left.
func (up uploadJudging) ownerListed(u backends.LeftUpload, uris []string) bool {
	names := map[string]bool{}
	for _, m := range u.Markers {
		names[m] = true
	}
	if u.Volume != "" {
		names[u.Volume] = true
	}
	for _, uri := range uris {
		l := up.byURI[uri]
		if l == nil {
			continue
		}
		for _, o := range l.owned {
			for _, v := range o.Volumes {
				if v.Pool == u.Pool && names[v.Name] {
					return true
				}
			}
		}
	}
	return false
}

// longImageIn reports whether site.cue declares on uri, in pool, an
// image whose name is long enough for its upload's markers to be named
// by its hash (longer than 236 bytes; backends/libvirt/uploadmark.UploadingName).
func (idx hostIndex) longImageIn(uri, pool string) bool {
	for key := range idx.images[uri] {
		if p, name, _ := strings.Cut(key, "/"); p == pool && len(name) > 236 {
			return true
		}
	}
	return false
}

// uploadRemoval is the virsh commands that delete what an upload left:
// the partial volume, then its markers, as README's libvirt section
// advises (a marker left alone makes the volume read as missing, never
// as whole).
func uploadRemoval(uri string, u backends.LeftUpload) []string {
	vols := u.Markers
	if u.Partial {
		vols = append([]string{u.Volume}, u.Markers...)
	}
	out := make([]string, len(vols))
	for i, v := range vols {
		out[i] = virshLine(uri, "vol-delete", "--pool", u.Pool, v)
	}
	return out
}

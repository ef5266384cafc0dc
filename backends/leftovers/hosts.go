package leftovers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/words"
)

// hostIndex says which tenants declare VMs (networks) on each host URI,
// and which base images site.cue declares there.
type hostIndex struct {
	vms, nets map[string]map[string]bool // URI -> tenant -> declares one there
	images    map[string]map[string]bool // URI -> "pool/volume" -> declared
	vmNames   map[string]map[string]bool // URI -> VM name -> declared there
}

func declaredOnHosts(in Input) hostIndex {
	idx := hostIndex{vms: map[string]map[string]bool{}, nets: map[string]map[string]bool{}, images: map[string]map[string]bool{}, vmNames: map[string]map[string]bool{}}
	for name, imgs := range in.Images {
		for key := range imgs {
			mark(idx.images, in.Hosts[name], key)
		}
	}
	for _, t := range in.Tenants {
		for _, vm := range t.VMs {
			mark(idx.vms, vm.Host, t.Name)
			mark(idx.vmNames, vm.Host, vm.Name)
		}
		for _, n := range t.Networks {
			mark(idx.nets, n.Host, t.Name)
		}
	}
	return idx
}

// mark notes key under uri in m.
func mark(m map[string]map[string]bool, uri, key string) {
	if m[uri] == nil {
		m[uri] = map[string]bool{}
	}
	m[uri][key] = true
}

// hosts looks at every host of in, once per URI. Every host is listed
// before any is judged: a domain or network is known by its UUID (which
// libvirt picks at random, and site never sets) on every URI that lists
// it, so one daemon that site.cue declares under two URIs
// (qemu:///system and qemu+unix:///system) shows its tenants' VMs as
// theirs through both. So are a pool's uploads, by the pool's UUID
// (uploads.go).
func (f *Finder) hosts(ctx context.Context, in Input) []HostReport {
	idx := declaredOnHosts(in)
	var lists []*hostList
	first := map[string]string{} // URI -> the host looked at there
	for _, name := range slices.Sorted(maps.Keys(in.Hosts)) {
		uri := in.Hosts[name]
		if same, ok := first[uri]; ok {
			lists = append(lists, &hostList{report: HostReport{Name: name, URI: uri, SameAs: same}})
			continue
		}
		first[uri] = name
		lists = append(lists, f.listHost(ctx, name, uri))
	}
	declared, unread := idx.declaredUUIDs(lists), unreadHosts(lists)
	up := newUploadJudging(idx, in, lists)
	out := make([]HostReport, len(lists))
	for i, l := range lists {
		out[i] = f.judge(l, idx, declared, unread, in)
		out[i].Pools = f.judgePools(l, up)
	}
	return out
}

// unreadHosts is the hosts of lists that could not be listed, by URI.
func unreadHosts(lists []*hostList) map[string]string {
	out := map[string]string{}
	for _, l := range lists {
		if l.report.Error != "" {
			out[l.uri] = l.report.Name
		}
	}
	return out
}

// declaredOnUnread names a host that could not be listed on which o's
// tenant declares one of its kind: it may be o's host under another
// URI, and o that tenant's, which only its listing would say.
func (idx hostIndex) declaredOnUnread(o backends.Owned, unread map[string]string) (string, bool) {
	for _, uri := range slices.Sorted(maps.Keys(unread)) {
		if idx.declares(uri, o) {
			return unread[uri], true
		}
	}
	return "", false
}

// hostList is one host's owner elements and the uploads left in its
// pools as listed, before they are judged; report holds what is known
// of it so far (an error, or SameAs, or why its pools were not listed).
type hostList struct {
	uri    string
	owned  []backends.Owned
	pools  []backends.PoolUploads
	report HostReport
}

// listHost lists what carries an owner element on uri, then what its
// pools hold of uploads that did not finish; an error is the report's
// (PoolsError when only the pools could not be listed: the domains and
// networks listed are judged still).
func (f *Finder) listHost(ctx context.Context, name, uri string) *hostList {
	l := &hostList{uri: uri, report: HostReport{Name: name, URI: uri}}
	switch {
	case f.Hosts == nil:
		l.report.Error = "this build of site has no libvirt backend"
		if f.NoHosts != nil {
			l.report.Error = f.NoHosts.Error()
		}
		return l
	case ctx.Err() != nil:
		l.report.Error = notRead(ctx)
		return l
	}
	owned, err := f.Hosts.ListOwned(ctx, uri)
	if err != nil {
		l.report.Error = err.Error()
		return l
	}
	l.owned = owned
	l.report.Listed = len(owned)
	pools, err := f.Hosts.ListLeftUploads(ctx, uri)
	switch {
	case err != nil && ctx.Err() != nil:
		l.report.PoolsError = notRead(ctx)
	case err != nil:
		l.report.PoolsError = err.Error()
	default:
		l.pools = pools
	}
	return l
}

// declares reports whether o's tenant declares one of o's kind on uri.
func (idx hostIndex) declares(uri string, o backends.Owned) bool {
	if o.Kind == backends.OwnedNetwork {
		return idx.nets[uri][o.Tenant]
	}
	return idx.vms[uri][o.Tenant]
}

// declaredUUIDs is the UUIDs of what a host lists whose tenant declares
// one of its kind on that host.
func (idx hostIndex) declaredUUIDs(lists []*hostList) map[string]bool {
	out := map[string]bool{}
	for _, l := range lists {
		for _, o := range l.owned {
			if o.UUID != "" && idx.declares(l.uri, o) {
				out[o.Kind+" "+o.UUID] = true
			}
		}
	}
	return out
}

// judge keeps of l what its tenant declares nothing of that kind for,
// on l's host or on any URI that lists it too: what diff and apply never
// look at (a tenant that still declares a VM there has the others'
// removal planned by its own runs).
func (f *Finder) judge(l *hostList, idx hostIndex, declared map[string]bool, unread map[string]string, in Input) HostReport {
	rep, loaded := l.report, loaded(in)
	for _, o := range l.owned {
		if idx.declares(l.uri, o) || declared[o.Kind+" "+o.UUID] {
			continue
		}
		what := map[string]string{backends.OwnedDomain: "VM", backends.OwnedNetwork: "network"}[o.Kind]
		r := Resource{Kind: o.Kind, Name: o.Name, UUID: o.UUID, Tenant: o.Tenant, Loaded: loaded[o.Tenant],
			Active: o.Active, Volumes: volumeNames(o.Volumes), InUse: inUse(o), Remove: []string{}}
		switch host, onUnread := idx.declaredOnUnread(o, unread); {
		case grantedUnloaded(in, loaded, o.Tenant):
			r.NotJudged = notJudgedWhy(o.Tenant, what)
		case onUnread:
			r.NotJudged = fmt.Sprintf("tenant %s declares a %s on host %s, which could not be read: if that is this host under another URI, this may be it; run site leftovers again once host %s can be read", o.Tenant, what, host, host)
		default:
			r.Remove = removal(f.Hosts.Opens(l.uri), o)
		}
		rep.Leftovers = append(rep.Leftovers, r)
	}
	return rep
}

// removal is the virsh commands that remove o by hand, as README's
// libvirt section advises: stop it if it runs (destroy, a hard stop that
// returns once it is off), undefine it, and delete
// the volumes site made for a domain; none for a network a domain has
// an interface on, and no delete of a volume another domain uses: what
// something uses is never destroyed (INCIDENTS.md, 3). They name o by its UUID, not its
// name: virsh takes a word that reads as a domain id, or as a UUID, for
// that first, so a leftover named "1" (a tenant's VM name may be) would
// have them stop and undefine whichever live domain has id 1.
func removal(uri string, o backends.Owned) []string {
	virsh := func(args ...string) string { return virshLine(uri, args...) }
	var out []string
	if o.Kind == backends.OwnedNetwork {
		if len(o.UsedBy) > 0 {
			return out // never from under a domain: inUse says which
		}
		if o.Active {
			out = append(out, virsh("net-destroy", o.UUID))
		}
		return append(out, virsh("net-undefine", o.UUID))
	}
	if o.Active {
		// destroy, not shutdown: shutdown only asks the guest and returns
		// at once, so the undefine and vol-delete pasted after it would
		// delete the disks of a guest still running. destroy returns once
		// the domain is off.
		out = append(out, virsh("destroy", o.UUID))
	}
	out = append(out, virsh("undefine", o.UUID))
	for _, v := range o.Volumes {
		if len(v.UsedBy) == 0 {
			out = append(out, virsh("vol-delete", "--pool", v.Pool, v.Name))
		}
	}
	return out
}

// inUse says what of o another domain uses, which removal leaves: the
// domains on a network, or each volume of a domain another one uses.
func inUse(o backends.Owned) []string {
	if o.Kind == backends.OwnedNetwork {
		if len(o.UsedBy) == 0 {
			return nil
		}
		return []string{"network " + o.Name + " by " + strings.Join(o.UsedBy, ", ")}
	}
	var out []string
	for _, v := range o.Volumes {
		if len(v.UsedBy) > 0 {
			out = append(out, v.String()+" by "+strings.Join(v.UsedBy, ", "))
		}
	}
	return out
}

func volumeNames(vs []backends.Volume) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// virshLine is the virsh command line on uri with args, each quoted for a
// shell.
func virshLine(uri string, args ...string) string {
	line := []string{"virsh", "-c", words.ShellQuote(uri)}
	for _, a := range args {
		line = append(line, words.ShellQuote(a))
	}
	return strings.Join(line, " ")
}

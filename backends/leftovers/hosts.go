package leftovers

import (
	"context"
	"strings"

	"github.com/site-tools/site/backends"
)

// hostIndex says which tenants declare VMs (networks) on each host URI.
type hostIndex struct {
	vms, nets map[string]map[string]bool // URI -> tenant -> declares one there
}

func declaredOnHosts(in Input) hostIndex {
	idx := hostIndex{vms: map[string]map[string]bool{}, nets: map[string]map[string]bool{}}
	mark := func(m map[string]map[string]bool, uri, tenant string) {
		if m[uri] == nil {
			m[uri] = map[string]bool{}
		}
		m[uri][tenant] = true
	}
	for _, t := range in.Tenants {
		for _, vm := range t.VMs {
			mark(idx.vms, vm.Host, t.Name)
		}
		for _, n := range t.Networks {
			mark(idx.nets, n.Host, t.Name)
		}
	}
	return idx
}

// host lists what carries an owner element on uri and keeps what its
// tenant declares nothing of that kind there for: what diff and apply
// never look at (a tenant that still declares a VM there has the
// others' removal planned by its own runs).
func (f *Finder) host(ctx context.Context, name, uri string, idx hostIndex, loaded map[string]bool) HostReport {
	rep := HostReport{Name: name, URI: uri}
	if f.Hosts == nil {
		rep.Error = "this build of site has no libvirt backend"
		return rep
	}
	if ctx.Err() != nil {
		rep.Error = notRead(ctx)
		return rep
	}
	owned, err := f.Hosts.ListOwned(ctx, uri)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.Listed = len(owned)
	for _, o := range owned {
		declares := idx.vms
		if o.Kind == backends.OwnedNetwork {
			declares = idx.nets
		}
		if declares[uri][o.Tenant] {
			continue
		}
		rep.Leftovers = append(rep.Leftovers, Resource{Kind: o.Kind, Name: o.Name, UUID: o.UUID, Tenant: o.Tenant, Loaded: loaded[o.Tenant],
			Active: o.Active, Volumes: volumeNames(o.Volumes), Remove: removal(f.Hosts.Opens(uri), o)})
	}
	return rep
}

// removal is the virsh commands that remove o by hand, as README's
// libvirt section advises: stop it if it runs, undefine it, and delete
// the volumes site made for a domain. They name o by its UUID, not its
// name: virsh takes a word that reads as a domain id, or as a UUID, for
// that first, so a leftover named "1" (a tenant's VM name may be) would
// have them stop and undefine whichever live domain has id 1.
func removal(uri string, o backends.Owned) []string {
	virsh := func(args ...string) string {
		words := []string{"virsh", "-c", shellQuote(uri)}
		for _, a := range args {
			words = append(words, shellQuote(a))
		}
		return strings.Join(words, " ")
	}
	var out []string
	if o.Kind == backends.OwnedNetwork {
		if o.Active {
			out = append(out, virsh("net-destroy", o.UUID))
		}
		return append(out, virsh("net-undefine", o.UUID))
	}
	if o.Active {
		out = append(out, virsh("shutdown", o.UUID))
	}
	out = append(out, virsh("undefine", o.UUID))
	for _, v := range o.Volumes {
		out = append(out, virsh("vol-delete", "--pool", v.Pool, v.Name))
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

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"sort"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/netstep"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
)

var _ backends.OwnerLister = (*Driver)(nil)

// ListOwned lists the domains and then the networks on host that carry
// site's owner element, whichever tenant it names, each by name: for
// site leftovers, which judges them against every tenant's spec. It
// reads what a run's observation of the host reads, and nothing more.
func (d *Driver) ListOwned(ctx context.Context, host string) ([]backends.Owned, error) {
	if d.OptsErr != nil {
		return nil, d.OptsErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, err := d.observe(host)
	if err != nil {
		return nil, conn.Explain(err)
	}
	// What another domain uses is said, so that no command printed to
	// remove a leftover takes it from under that domain.
	var doms, nets []backends.Owned
	for name, o := range h.Domains {
		if o.Owner != nil {
			doms = append(doms, backends.Owned{Kind: backends.OwnedDomain, Name: name, UUID: o.UUID(), Tenant: o.Owner.Tenant, Active: o.Running,
				Volumes: volumesOf(o.Owner, h.VolumeRefs(name, true))})
		}
	}
	for name, o := range h.Networks {
		if o.Owner != nil {
			nets = append(nets, backends.Owned{Kind: backends.OwnedNetwork, Name: name, UUID: o.UUID(), Tenant: o.Owner.Tenant, Active: o.Active,
				UsedBy: netstep.Users(h.Obs, name)})
		}
	}
	byName := func(s []backends.Owned) { sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name }) }
	byName(doms)
	byName(nets)
	return append(doms, nets...), nil
}

// volumesOf is the volumes an owner element lists, each with the
// domains refs (volumeRefs, by pool "\x00" name) says use it.
func volumesOf(o *ownership.Owner, refs map[string][]string) []backends.Volume {
	if len(o.Volumes) == 0 {
		return nil
	}
	out := make([]backends.Volume, len(o.Volumes))
	for i, v := range o.Volumes {
		out[i] = backends.Volume{Pool: v.Pool, Name: v.Name, UsedBy: refs[v.Pool+"\x00"+v.Name]}
	}
	return out
}

// Opens is the URI d connects to for host: URIMapEnv's mapping of it,
// else host itself (backends.OwnerLister).
func (d *Driver) Opens(host string) string {
	if m, ok := d.Opts.URIMap[host]; ok {
		return m
	}
	return host
}

// ListLeftUploads lists, for every pool on host in name order, with
// its UUID, the uploads that did not finish there that site's markers
// prove (backends.OwnerLister): the UUID knows a pool listed under two
// URIs of one daemon as one. A pool that is not active cannot list its
// volumes: its PoolUploads says so.
func (d *Driver) ListLeftUploads(ctx context.Context, host string) ([]backends.PoolUploads, error) {
	if d.OptsErr != nil {
		return nil, d.OptsErr
	}
	h, err := d.observe(host)
	if err != nil {
		return nil, conn.Explain(err)
	}
	return storage.LeftUploads(ctx, h)
}

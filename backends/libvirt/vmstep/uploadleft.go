//go:build cgo && libvirt_dlopen

package vmstep

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A seed upload that did not finish (a killed apply, a lost connection)
// leaves its partial volume and its marker (storage, marker.go). While the
// VM names that seed, its step uploads it again. Once the VM's
// cloud-init or name changes, the seed's name changes with it, no step
// names the old one, and the two would stay in the pool for good,
// unreported: nothing lists the volume in an owner element, as the
// domain was never defined with it.
//
// So a VM step also looks at the markers of seeds in the pools its
// tenant's VMs use, and plans the removal, on a line of its own, of
// each upload whose newest marker names the VM's tenant (markerNote.Tenant)
// and whose seed no VM of that tenant on the host names, no domain's
// definition references and no domain's owner element lists. Of the
// tenant's VMs that use a pool, the first by name plans its pool's, so
// that one plan lists each once. Nothing else is looked at: a volume
// without a seed's name (which site keeps for seeds), a base image's
// upload (site.cue's, whose marker names no tenant), another tenant's,
// and a marker an older site made, which names none.
//
// The removal needs no gate: a partial seed holds no one's data, and
// site makes a seed again from the spec whenever a VM names it. Apply
// takes the upload over by the rules every upload goes by
// (holdUpload): it waits while the marker grows, and deletes only
// once the marker is stale; a run that finishes the upload meanwhile
// keeps its seed.

// planLeftUploads plans the removal of what the tenant's seed uploads
// that did not finish left in the pools this VM sweeps. A pool it
// cannot read is said in a note: not knowing is not wanting, so
// nothing there is removed, and the VM's own plan goes on.
func (p *vmPlanner) planLeftUploads() {
	wanted := map[string]bool{}
	for _, vm := range p.tenantVMs() {
		if vm.CloudInit != nil {
			wanted[vmSeed(vm).Name] = true
		}
	}
	for _, pool := range p.sweptPools() {
		if err := p.planLeftUploadsIn(pool, wanted); err != nil {
			p.notes = append(p.notes, fmt.Sprintf("seed uploads tenant %s left unfinished in pool %s were not looked for (%v), so none is removed in this run", p.vm.Tenant, pool, err))
		}
	}
}

// planLeftUploadsIn plans the removal of each seed upload in pool that
// a run of the VM's tenant left and that no VM of the tenant names
// (wanted).
func (p *vmPlanner) planLeftUploadsIn(pool string, wanted map[string]bool) error {
	p.h.Lock()
	names, err := p.h.VolNames(pool)
	p.h.Unlock()
	if errors.As(err, &storage.NoPoolError{}) {
		return nil // not made or not started yet: nothing can be left in it
	}
	if err != nil {
		return err
	}
	used := p.h.VolumeRefs("", false)
	listed := p.h.OwnerListed()
	marked := markedSeeds(names)
	for _, name := range slices.Sorted(maps.Keys(marked)) {
		key := ownership.Volume{Pool: pool, Name: name}.Key()
		if wanted[name] || len(used[key]) > 0 || listed[key] {
			continue
		}
		ms := marked[name]
		note, found, err := p.h.markerNote(pool, ms[len(ms)-1].Name)
		if err != nil {
			return err
		}
		if !found || note.Tenant != p.vm.Tenant {
			continue
		}
		p.planLeftUpload(pool, name, ms, slices.Contains(names, name), note)
	}
	return nil
}

// planLeftUpload is the removal of the seed upload into pool/name that
// a run of the tenant left: the volume, when partial is true, and its
// markers ms, the newest of which says note.
func (p *vmPlanner) planLeftUpload(pool, name string, ms []uploadmark.Marker, partial bool, note uploadmark.Note) {
	var markers []string
	for _, m := range ms {
		markers = append(markers, m.Name)
	}
	volume, what := "absent", "its marker"
	if partial {
		volume, what = "partial", "the partial volume and its marker"
	}
	when := fmt.Sprintf("apply does so once the marker has not grown for %s; if a run that still uploads the seed finishes first, it is kept", uploadmark.StaleAfter())
	if note.Gone() {
		when = "that process is gone"
	}
	reason := fmt.Sprintf("cloud-init seed whose upload did not finish, left by %s of tenant %s (%s beside it): no VM of the tenant on this host names this seed any more, so no run uploads it again; delete %s (%s)",
		note.Who(), p.vm.Tenant, strings.Join(markers, ", "), what, when)
	p.change(storage.VolumeKey(p.vm.Host, pool, name), plan.ActionDelete, plan.ImpactNone, reason,
		map[string]any{"volume": volume, "markers": markers}, nil)
	p.add(op{Kind: OpClearUpload, Pool: pool, Volume: name})
	p.seen = append(p.seen, "left upload", pool, name, volume, strings.Join(markers, ","), note.Since, note.Machine)
}

// tenantVMs are the VMs the VM's tenant declares on its host; the VM
// alone when the step carries no tenant.
func (p *vmPlanner) tenantVMs() []*model.VM {
	if p.step.TenantSpec == nil {
		return []*model.VM{p.vm}
	}
	var out []*model.VM
	for _, vm := range p.step.TenantSpec.VMs {
		if vm.Host == p.vm.Host {
			out = append(out, vm)
		}
	}
	return out
}

// sweptPools are the pools this VM uses of which it is the tenant's
// first VM on the host (by name) to use them: its plan is the one
// that lists what the tenant's uploads left there.
func (p *vmPlanner) sweptPools() []string {
	var out []string
	for _, pool := range vmPools(p.vm) {
		first := p.vm.Name
		for _, vm := range p.tenantVMs() {
			if vm.Name < first && slices.Contains(vmPools(vm), pool) {
				first = vm.Name
			}
		}
		if first == p.vm.Name {
			out = append(out, pool)
		}
	}
	return out
}

// vmPools are the pools vm keeps volumes in: its disks' and its seed's.
func vmPools(vm *model.VM) []string {
	var out []string
	for _, d := range vm.Disks {
		out = append(out, d.Pool)
	}
	if vm.CloudInit != nil {
		out = append(out, seedPool(vm))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// markedSeeds groups the upload markers among a pool's volume names by
// the seed volume they mark, oldest first; markers of other volumes
// are left out.
func markedSeeds(names []string) map[string][]uploadmark.Marker {
	out := map[string][]uploadmark.Marker{}
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, ".")
		seed, _, marks := strings.Cut(rest, ".uploading")
		if !ok || !marks || !model.SeedVolumeName.MatchString(seed) || out[seed] != nil {
			continue
		}
		if ms := uploadmark.In(names, seed); len(ms) > 0 {
			out[seed] = ms
		}
	}
	return out
}

// markerNote reads the note of marker volume name in pool; found is
// false when the marker went meanwhile.
func (h *hostObs) markerNote(pool, name string) (note uploadmark.Note, found bool, err error) {
	h.Lock()
	defer h.Unlock()
	p, err := h.Pool(pool)
	if err != nil {
		return uploadmark.Note{}, false, err
	}
	defer p.Free()
	what := pool + "/" + name
	calling := func(call string) func() { return h.d.Calling(h.d.Server(h.Host), call) }
	done := calling("LookupStorageVolByName " + what)
	vol, err := p.LookupStorageVolByName(name)
	done()
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return uploadmark.Note{}, false, nil
	}
	if err != nil {
		return uploadmark.Note{}, false, fmt.Errorf("look up the upload marker %s on %s: %w", what, h.Host, err)
	}
	defer vol.Free()
	note, _, err = uploadmark.ReadNote(h.Conn, vol, what, calling)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return uploadmark.Note{}, false, nil
	}
	if err != nil {
		return uploadmark.Note{}, false, fmt.Errorf("read the upload marker %s on %s: %w", what, h.Host, err)
	}
	return note, true, nil
}

// clearLeftUpload deletes what a seed upload into pool/name that no
// spec names any more left: it takes the upload over once its marker
// is stale, as an upload does (holdUpload), and deletes the partial
// volume and every marker. A run that finished the upload meanwhile
// keeps its seed.
func (a *applier) clearLeftUpload(pool, name string) error {
	p, err := a.w().Pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	u, whole, err := a.w().HoldUpload(p, pool, name, true)
	if err != nil {
		return fmt.Errorf("clear the seed upload into %s/%s that did not finish: %w", pool, name, err)
	}
	if u == nil {
		if whole {
			a.run.Say(pool + "/" + name + " was uploaded whole by another run meanwhile: kept")
		}
		return nil
	}
	defer u.Release()
	if err := u.DropStale(); err != nil {
		return err
	}
	return u.Unmark()
}

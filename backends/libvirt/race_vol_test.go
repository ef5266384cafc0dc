//go:build cgo && libvirt_dlopen

package libvirt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// othersGraph compiles tenant other holding vms on r's host.
func (r *rig) othersGraph(vms ...*model.VM) *graph.Graph {
	r.t.Helper()
	for _, vm := range vms {
		vm.Tenant = "other"
	}
	return r.discovered(&model.Spec{Tenants: []*model.Tenant{{Name: "other", Domain: "other.example.net.", VMs: vms}}})
}

// wantDomainGone fails the test unless r's host has no domain name, and
// domain keep still has a disk on pool/vol.
func wantDomainGone(t *testing.T, r *rig, name, keep, pool, vol string) {
	t.Helper()
	if d, err := r.conn().LookupDomainByName(name); err == nil {
		d.Free()
		t.Errorf("domain %s is defined, sharing %s/%s with %s", name, pool, vol, keep)
	}
	if _, on := domain.DiskOn(r.domain(keep).Inactive, pool, vol, ""); !on {
		t.Errorf("domain %s of tenant other lost its disk on %s/%s", keep, pool, vol)
	}
}

// TestVolumeAttachedMeanwhileIsRefused: a volume no domain has attached
// is any tenant's to name, and the plan refuses one another tenant's
// domain has. Two tenants' applies run at once (each holds its own
// lock), so both plans could find volume shared free and both define a
// domain on it: two guests on one disk, each reading the other's data.
// The define looks at the host's domains again right before it acts,
// and changes nothing.
func TestVolumeAttachedMeanwhileIsRefused(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload(pool.Name, "shared", pattern(1<<20))
	shared := model.Disk{Pool: pool.Name, Name: "shared", SizeBytes: 1 << 20}
	g := r.graph([]*model.VM{r.stopped("wa", pool, shared)}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	other := newRigWith(t, r.host, New(r.d.Opts))
	other.converge(other.othersGraph(other.stopped("wb", pool, shared))) // between the plan and the apply

	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	failedSaying(t, rep, graph.VMStepID(r.host, "wa"), "images/shared is attached to domain wb of tenant \"other\"", "after this run's plan", "nothing was changed")
	wantDomainGone(t, r, "wa", "wb", pool.Name, "shared")
}

// TestVolumeAttachedAtOnceIsUndone: two defines that each look right
// before they act may both look before either defines, so the define
// looks again after it: the later sees the earlier's domain on the
// volume and takes its own define back. The proxy holds this run's
// define while the other tenant's apply defines its domain.
func TestVolumeAttachedAtOnceIsUndone(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="), procDomainDefineXML)
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: uri}})
	other := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	pool := &model.Pool{HostName: "local", Host: sessionHost, Name: "images", Type: "dir", Path: filepath.Join(s.Dir, "images")}
	other.makePool(pool)
	other.upload(pool.Name, "shared", pattern(1<<20))
	shared := model.Disk{Pool: pool.Name, Name: "shared", SizeBytes: 1 << 20}
	g := r.graph([]*model.VM{r.stopped("wa", pool, shared)}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	rep := r.applyHeldWhile(g, obs, run, held, func() { other.converge(other.othersGraph(other.stopped("wb", pool, shared))) })
	failedSaying(t, rep, graph.VMStepID(r.host, "wa"), "images/shared is attached to domain wb of tenant \"other\"", "undefined", "site diff")
	wantDomainGone(t, other, "wa", "wb", pool.Name, "shared")
}

// TestVolumeAttachedMeanwhileAfterARename: a VM renamed in the spec that
// also names a volume another tenant's domain attached after the plan
// is renamed first (its step's first action), then refused at its
// define: the error must not say nothing was changed, since the domain
// now has its new name.
func TestVolumeAttachedMeanwhileAfterARename(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload(pool.Name, "shared", pattern(1<<20))
	root := model.Disk{Pool: pool.Name, Name: "wold-root", SizeBytes: 1 << 20}
	shared := model.Disk{Pool: pool.Name, Name: "shared", SizeBytes: 1 << 20}
	r.converge(r.graph([]*model.VM{r.stopped("wold", pool, root)}, nil))
	g := r.graph([]*model.VM{r.stopped("wa", pool, root, shared)}, nil)
	obs, run := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v", obs.Plan.Blocked)
	}
	other := newRigWith(t, r.host, New(r.d.Opts))
	other.converge(other.othersGraph(other.stopped("wb", pool, shared))) // between the plan and the apply

	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	step := stepReport(t, rep, graph.VMStepID(r.host, "wa"))
	if step.Status != engine.StatusFailed || !strings.Contains(step.Reason, "after this run's plan") {
		t.Fatalf("the VM's step %s (%s), want it failed at the define", step.Status, step.Reason)
	}
	if _, err := r.conn().LookupDomainByName("wa"); err != nil {
		t.Fatalf("domain wa is not there (%v): the step did not rename wold first, so the case does not do what it says", err)
	}
	if strings.Contains(step.Reason, "nothing was changed") {
		t.Errorf("the step's error says nothing was changed, but it renamed domain wold to wa:\n%s", step.Reason)
	}
	if !strings.Contains(step.Reason, "renamed domain wold to wa") {
		t.Errorf("the step's error does not say what it did before it stopped (renamed domain wold to wa):\n%s", step.Reason)
	}
}

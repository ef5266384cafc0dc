//go:build cgo && libvirt_dlopen

package libvirt

import (
	"os"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestVolumeMadeMeanwhileIsNotClaimed: a VM step lists the volumes it
// makes in the owner element before it makes them (see
// TestVolumesAreClaimedBeforeTheyAreMade). A volume that appears between
// the plan and its creation (another run, another tenant's run whose
// file was not loaded with this one, the operator by hand) is not
// site's: the failed create takes it out of the owner element, live and
// persistent, and out of the definition, whose disk would otherwise
// have the next run take it for one the VM has attached already; the
// step's error says what happened. A later removal of the VM then
// keeps the volume and its data.
func TestVolumeMadeMeanwhileIsNotClaimed(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload(pool.Name, "base.raw", pattern(1<<20))
	disk := func(name string) model.Disk { return model.Disk{Pool: pool.Name, Name: name, SizeBytes: 1 << 20} }
	tests := []struct {
		name    string
		before  []model.Disk // the VM as a first apply left it; nil: no domain yet
		disks   []model.Disk
		running bool
		theirs  string // the disk that appears between plan and apply
	}{
		{name: "a new VM's disk", disks: []model.Disk{disk("new-root")}, theirs: "new-root"},
		{name: "a new VM's overlay", disks: []model.Disk{{Pool: pool.Name, Name: "lay-root", SizeBytes: 2 << 20, Base: "base.raw"}}, theirs: "lay-root"},
		{name: "a disk added to a VM", before: []model.Disk{disk("grown-root")}, disks: []model.Disk{disk("grown-root"), disk("grown-data")}, theirs: "grown-data"},
		{name: "a disk added to a running VM", before: []model.Disk{disk("live-root")}, disks: []model.Disk{disk("live-root"), disk("live-data")}, running: true, theirs: "live-data"},
	}
	// A VM the tenant keeps on the host, so that the removal of the
	// case's VM is found: site looks for the domains a tenant dropped
	// only on the hosts where it still declares one.
	keeper := r.stopped("keeper", pool)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigWith(t, r.host, r.d)
			name := strings.TrimSuffix(tt.disks[0].Name, "-root")
			vm := func(disks []model.Disk) *model.VM {
				vm := r.stopped(name, pool, disks...)
				vm.Running = tt.running
				return vm
			}
			if tt.before != nil {
				r.converge(r.graph([]*model.VM{keeper, vm(tt.before)}, nil))
			}
			g := r.graph([]*model.VM{keeper, vm(tt.disks)}, nil)
			obs, run := r.diff(g)
			theirs := pattern(1 << 20)
			r.upload(pool.Name, tt.theirs, theirs) // between the plan and its creation

			rep, err := r.tryApply(g, obs, run)
			if err != nil {
				t.Fatal(err)
			}
			step := stepReport(t, rep, graph.VMStepID(r.host, name))
			if step.Status != engine.StatusFailed {
				t.Fatalf("the VM's step %s (%s), want failed: the disk could not be made", step.Status, step.Reason)
			}
			for _, want := range []string{pool.Name + "/" + tt.theirs, "site did not make it", "no longer lists it", "site diff"} {
				if !strings.Contains(step.Reason, want) {
					t.Errorf("the step's error does not say %q:\n%s", want, step.Reason)
				}
			}
			d := r.domain(name)
			defs := map[string]*libvirtxml.Domain{"persistent": d.Inactive}
			if tt.running {
				defs["live"] = d.Live
			}
			for which, def := range defs {
				if o, _, err := ownership.Parse(def.Metadata.XML); err != nil || strings.Contains(o.String(), tt.theirs) {
					t.Errorf("the %s owner element %q (%v) claims %s, which site did not make", which, o.String(), err, tt.theirs)
				}
			}
			if _, on := domain.DiskOn(d.Inactive, pool.Name, tt.theirs, ""); on {
				t.Errorf("the persistent definition still has a disk on %s: the next run would take it for one the VM has attached", tt.theirs)
			}

			r.converge(r.graph([]*model.VM{keeper}, nil)) // the tenant drops the VM
			if got := r.volumeData(pool.Name, tt.theirs); string(got) != string(theirs) {
				t.Errorf("after the VM's removal %s holds %d bytes unlike what was written there: the removal deleted a volume site did not make", tt.theirs, len(got))
			}
		})
	}
}

// stepReport is rep's report of step id.
func stepReport(t *testing.T, rep *engine.Report, id string) engine.StepReport {
	t.Helper()
	for _, s := range rep.Steps {
		if s.Step == id {
			return s
		}
	}
	t.Fatalf("no step %s in the report", id)
	return engine.StepReport{}
}

// volumeData is what the file of volume pool/name holds, nil when
// libvirt no longer lists the volume once it read the pool again.
func (r *rig) volumeData(pool, name string) []byte {
	r.t.Helper()
	p, err := r.conn().LookupStoragePoolByName(pool)
	if err != nil {
		r.t.Fatal(err)
	}
	defer p.Free()
	if err := p.Refresh(0); err != nil {
		r.t.Fatal(err)
	}
	v, err := p.LookupStorageVolByName(name)
	if err != nil {
		return nil
	}
	defer v.Free()
	path, err := v.GetPath()
	if err != nil {
		r.t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

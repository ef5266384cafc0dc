//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"errors"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/backends/libvirt/vmstep"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// errDied stands for the process dying: no op after it runs.
var errDied = errors.New("the run died here")

// TestVolumesAreClaimedBeforeTheyAreMade: a VM step's apply that dies
// right after it makes a volume (SIGKILL: nothing of it runs after) has
// already listed that volume in the owner element of the VM's domain.
// The next run then converges with the volume owned, so removing the VM
// later deletes it. Before, volumes were made first and the definition
// written after: a run killed between left the disk in the pool listed
// nowhere, the next run attached it as a volume site had not made, and
// a removal of the VM left it behind, unreported.
func TestVolumesAreClaimedBeforeTheyAreMade(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	disk := func(name string) model.Disk { return model.Disk{Pool: pool.Name, Name: name, SizeBytes: 1 << 20} }
	tests := []struct {
		name     string
		before   []model.Disk // the VM as a first, whole apply left it; nil: no domain yet
		disks    []model.Disk
		seed     bool
		dieAfter vmstep.OpKind
		want     string // the owner element once the next run converged
	}{
		{name: "a new VM's disk", disks: []model.Disk{disk("new-root")}, dieAfter: vmstep.OpCreateVolume,
			want: "tenant=t1 disk=images/new-root"},
		{name: "a new VM's seed", disks: []model.Disk{disk("seeded-root")}, seed: true, dieAfter: vmstep.OpUploadSeed,
			want: "tenant=t1 seed=images/" + seedName("seeded") + " disk=images/seeded-root"},
		{name: "a disk added to a VM", before: []model.Disk{disk("grown-root")}, disks: []model.Disk{disk("grown-root"), disk("grown-data")}, dieAfter: vmstep.OpCreateVolume,
			want: "tenant=t1 disk=images/grown-data disk=images/grown-root"},
	}
	// Each case's VM stays declared, so that the next case's runs do
	// not take it for one the tenant dropped.
	var declared []*model.VM
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRigWith(t, r.host, r.d)
			name := tt.disks[0].Name[:len(tt.disks[0].Name)-len("-root")]
			vm := func(disks []model.Disk) *model.VM {
				vm := r.stopped(name, pool, disks...)
				if tt.seed {
					vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"}
				}
				return vm
			}
			if tt.before != nil {
				r.converge(r.graph(append(declared, vm(tt.before)), nil))
			}
			declared = append(declared, vm(tt.disks))
			g := r.graph(declared, nil)
			r.applyDying(g.Step(graph.VMStepID(r.host, name)), tt.dieAfter)

			obs, run := r.diff(g)
			r.apply(g, obs, run) // no gate: the killed run's leftovers need none
			o, _, err := ownership.Parse(r.domain(name).Inactive.Metadata.XML)
			if err != nil || o.String() != tt.want {
				t.Errorf("owner element %q (%v), want %q", o.String(), err, tt.want)
			}
		})
	}
}

// applyDying plans step and applies it as apply does, but dies right
// after the first op of kind die has run: no op after it runs
// (vmstep.AfterOp).
func (r *rig) applyDying(step *graph.Step, die vmstep.OpKind) {
	r.t.Helper()
	r.d.ForgetObserved()
	run := runstate.Start(backends.NewRun())
	sp, err := r.d.VMs().Plan(context.Background(), step, run)
	if err != nil {
		r.t.Fatal(err)
	}
	died := false
	after := vmstep.AfterOp
	vmstep.AfterOp = func(k vmstep.OpKind, err error) error {
		if err == nil && k == die {
			died = true
			return errDied
		}
		return err
	}
	defer func() { vmstep.AfterOp = after }()
	if _, err := r.d.VMs().Apply(context.Background(), sp, run); !errors.Is(err, errDied) {
		r.t.Fatalf("apply before the death: %v", err)
	}
	if !died {
		r.t.Fatalf("the plan has no op of kind %d to die after", die)
	}
	r.d.ForgetObserved()
}

// seedName is the seed volume of a VM of that name whose user-data is
// "#cloud-config\n".
func seedName(vm string) string {
	return seed.Build(seed.Input{Hostname: vm, UserData: "#cloud-config\n"}).Name
}

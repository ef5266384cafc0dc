//go:build cgo && libvirt_dlopen

package libvirt

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestLiveChangeThatCannotLandIsPending: a running guest whose OS has
// no balloon driver (the session rig's guest boots no OS at all) cannot
// give memory back live, and libvirt refuses to unplug the vCPUs a QEMU
// guest booted with. libvirt accepts the smaller value for the next
// boot; every apply reports it as pending and converges, instead of
// failing forever on a live change that never lands.
func TestLiveChangeThatCannotLandIsPending(t *testing.T) {
	for _, tt := range []struct {
		name         string
		before, next func(*model.VM)
		inactive     func(domainState) uint
		want         uint
	}{
		{"memory shrink", func(vm *model.VM) { vm.MemoryBytes = 128 << 20 }, func(vm *model.VM) { vm.MemoryBytes = 64 << 20 },
			func(st domainState) uint { return memKiB(st.Inactive) }, 65536},
		{"vCPU unplug", func(vm *model.VM) { vm.VCPUs = 2 }, func(vm *model.VM) { vm.VCPUs = 1 },
			func(st domainState) uint { return st.Inactive.VCPU.Value }, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, s := sessionRig(t)
			vm := r.tiny("tiny")
			tt.before(vm)
			r.converge(r.graph([]*model.VM{vm}, nil))
			before := r.guest(s, "tiny")

			tt.next(vm)
			g := r.graph([]*model.VM{vm}, nil)
			for run := 1; run <= 2; run++ {
				obs, rn := r.diff(g)
				rep, err := r.tryApply(g, obs, rn)
				if err != nil {
					t.Fatalf("apply %d: %v", run, err)
				}
				if !rep.OK() {
					t.Fatalf("apply %d did not converge: %+v", run, rep.Steps)
				}
				var notes []string
				for _, st := range rep.Steps {
					notes = append(notes, st.Notes...)
				}
				if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "pending until the next boot") }) {
					t.Errorf("apply %d: got notes %q, want the change reported as pending", run, notes)
				}
				wantSameGuest(t, before, r.guest(s, "tiny"))
			}

			if got := tt.inactive(r.domain("tiny")); got != tt.want {
				t.Errorf("inactive XML: got %d, want %d", got, tt.want)
			}
			again, _ := r.diff(g)
			if len(again.Plan.Changes) == 0 {
				t.Error("after apply: got no changes, want the pending one")
			}
			for _, c := range again.Plan.Changes {
				if c.Impact != plan.ImpactNextBoot {
					t.Errorf("after apply: got %s, want only next-boot lines while the guest runs", line(c))
				}
			}
		})
	}
}

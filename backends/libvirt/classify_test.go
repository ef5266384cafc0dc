//go:build cgo && libvirt_dlopen

package libvirt

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestClassify starts every case from a converged, running VM and checks
// how each spec change is classified. VM and VOL stand for the domain's
// and the volumes' key prefixes.
func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(vm *model.VM)
		restart bool
		want    []string
		blocked string // a substring of the step's blocked reason
		noApply bool   // the test driver cannot apply it (no StorageVolUpload)
		notes   []string
	}{
		{name: "nothing", edit: func(*model.VM) {}},
		{name: "autostart only", edit: func(vm *model.VM) { vm.Autostart = true },
			want: []string{"live update VM [autostart]"}},
		{name: "memory above the running maximum", edit: func(vm *model.VM) { vm.MemoryBytes = 128 << 20 },
			want: []string{"next-boot update VM [memory]"}},
		{name: "vcpus above the running maximum", edit: func(vm *model.VM) { vm.VCPUs = 2 },
			want: []string{"next-boot update VM [vcpus]"}},
		{name: "stop", edit: func(vm *model.VM) { vm.Running = false },
			want: []string{"restart update VM [running] GATE-VM-STOP"}},
		{name: "restart asked with pending changes", restart: true, edit: func(vm *model.VM) { vm.MemoryBytes = 128 << 20 },
			want: []string{"next-boot update VM [memory]", "restart update VM [domain id] GATE-VM-RESTART"}},
		// Asked for and silently not done left the user wondering.
		{name: "restart asked, nothing pending", restart: true, edit: func(*model.VM) {},
			notes: []string{"--restart " + tenant + "/web: nothing is pending for it, so it is not restarted"}},
		{name: "new disk", edit: func(vm *model.VM) {
			vm.Disks = append(vm.Disks, model.Disk{Pool: "default", Name: "web-data", SizeBytes: 1 << 20})
		}, want: []string{"next-boot update VM [disks]", "live update VM [owner]", "none create VOL/web-data [size]"}},
		{name: "disk grows", edit: func(vm *model.VM) { vm.Disks[0].SizeBytes = 2 << 30 },
			want: []string{"next-boot update VOL/web-root [size] GATE-VM-DISK-RESIZE"}},
		{name: "disk shrinks", edit: func(vm *model.VM) { vm.Disks[0].SizeBytes = 1 << 20 },
			blocked: "holds 1GiB but the spec declares 1MiB: site never shrinks a volume (data would be lost); declare its real size, \"1GiB\""},
		// The running guest still has the volume open: it leaves the
		// definition now and is deleted by a run after the next shutdown.
		{name: "disk removed while running", edit: func(vm *model.VM) { vm.Disks = nil },
			want: []string{"next-boot update VM [disks]"}},
		{name: "seed added", edit: func(vm *model.VM) { vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"} },
			want: []string{"next-boot update VM [cdroms]", "live update VM [owner]", "none create VOL/seed-f6def095d98494a2.iso [size]"}, noApply: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
			vm := r.vm("web")
			vm.Disks = []model.Disk{{Pool: "default", Name: "web-root", SizeBytes: 1 << 30}}
			r.converge(r.graph([]*model.VM{vm}, nil))
			before := r.domain("web")

			tt.edit(vm)
			g := r.graph([]*model.VM{vm}, nil)
			var restart []string
			if tt.restart {
				restart = []string{tenant + "/web"}
			}
			obs, _ := r.diff(g, restart...)
			if tt.blocked != "" {
				if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, tt.blocked) {
					t.Fatalf("got blocked %+v, want a reason containing %q", obs.Plan.Blocked, tt.blocked)
				}
				return
			}
			if len(obs.Plan.Blocked) > 0 {
				t.Fatalf("blocked: %+v", obs.Plan.Blocked)
			}
			var got []string
			for _, l := range lines(obs.Plan) {
				l = strings.ReplaceAll(l, "vm/"+r.host+"/web", "VM")
				got = append(got, strings.ReplaceAll(l, "volume/"+r.host+"/default", "VOL"))
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			var notes []string
			for _, n := range obs.Plan.Notes {
				notes = append(notes, n.Text)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes: got %q, want %q", notes, tt.notes)
			}
			if after := r.domain("web"); after.ID != before.ID || !after.Running {
				t.Errorf("diff changed the guest: id %d -> %d, running %v", before.ID, after.ID, after.Running)
			}
			if tt.noApply || len(obs.Plan.Gates()) > 0 {
				return
			}
			// Without gates, applying never touches the running guest and
			// leaves at most pending lines.
			r.apply(g, obs, backendsRun())
			if after := r.domain("web"); after.ID != before.ID || !after.Running {
				t.Errorf("apply restarted the guest: id %d -> %d, running %v", before.ID, after.ID, after.Running)
			}
			again, _ := r.diff(g)
			for _, c := range again.Plan.Changes {
				if c.Impact != "next-boot" {
					t.Errorf("after apply: %s", line(c))
				}
			}
		})
	}
}

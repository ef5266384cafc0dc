//go:build cgo && libvirt_dlopen

package libvirt

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

func TestCreateThenNoChanges(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	vm := r.vm("web")
	vm.Autostart = true
	vm.Disks = []model.Disk{{Pool: "default", Name: "web-root", SizeBytes: 1 << 30}}
	g := r.graph([]*model.VM{vm}, nil)

	obs, run := r.diff(g)
	want := []string{
		"none create vm/" + r.host + "/web [autostart,disks,memory,running,vcpus]",
		"none create volume/" + r.host + "/default/web-root [size]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r.apply(g, obs, run)

	again, _ := r.diff(g)
	if len(again.Plan.Changes) != 0 {
		t.Fatalf("got %q after apply, want no changes", lines(again.Plan))
	}
	st := r.domain("web")
	if !st.Running || !st.Autostart {
		t.Errorf("got running=%v autostart=%v, want both true", st.Running, st.Autostart)
	}
	if got := memKiB(st.Inactive); got != 65536 {
		t.Errorf("got memory %d KiB, want 65536", got)
	}
	o, _, err := ownership.Parse(st.Inactive.Metadata.XML)
	if err != nil || o == nil || o.Tenant != tenant {
		t.Fatalf("got owner %v (%v), want tenant %q", o, err, tenant)
	}
	if got, want := o.String(), "tenant=t1 disk=default/web-root"; got != want {
		t.Errorf("got owner %q, want %q", got, want)
	}
	if obs.Plan.Fingerprints[g.Steps[0].ID] == again.Plan.Fingerprints[g.Steps[0].ID] {
		t.Error("fingerprint did not change although the domain was created")
	}
}

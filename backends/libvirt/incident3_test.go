//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// sessionHost is how the incident tests' specs name the host; the URI
// map points it at the test's own daemon, as SITE_LIBVIRT_URI_MAP does.
const sessionHost = "qemu:///session"

// sessionRig starts a session libvirtd with a "default" dir pool.
func sessionRig(t *testing.T) (*rig, *libvirttest.Session) {
	t.Helper()
	s := libvirttest.StartSession(t)
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: s.URI}})
	c := r.conn()
	p, err := c.StoragePoolDefineXML(s.PoolXML(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	if err := p.Create(0); err != nil {
		t.Fatal(err)
	}
	// Guests are killed with the daemon; stop them first so libvirtd
	// exits promptly.
	t.Cleanup(func() {
		doms, _ := c.ListAllDomains(0)
		for _, d := range doms {
			_ = d.Destroy()
			_ = d.Free()
		}
	})
	return r, s
}

// guest is what the incident tests record before and after each apply.
type guest struct{ PID, ID int }

func (r *rig) guest(s *libvirttest.Session, name string) guest {
	r.t.Helper()
	return guest{PID: s.QEMUPID(name), ID: r.domain(name).ID}
}

func (r *rig) tiny(name string) *model.VM {
	vm := r.vm(name)
	vm.MemoryBytes = 64 << 20
	return vm
}

// wantSameGuest fails unless the guest runs with the same QEMU process
// and domain ID as before.
func wantSameGuest(t *testing.T, before, after guest) {
	t.Helper()
	if before.PID == 0 || before.ID < 0 {
		t.Fatalf("guest was not running before: %+v", before)
	}
	if after != before {
		t.Fatalf("guest restarted: QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	}
}

func TestIncident3_AutostartOnlyChangeKeepsGuestRunning(t *testing.T) {
	r, s := sessionRig(t)
	vm := r.tiny("tiny")
	r.converge(r.graph([]*model.VM{vm}, nil))
	before := r.guest(s, "tiny")

	vm.Autostart = true
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	want := []string{"live update vm/qemu:///session/tiny [autostart]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	after := r.guest(s, "tiny")
	t.Logf("QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	wantSameGuest(t, before, after)
	if !r.domain("tiny").Autostart {
		t.Error("autostart is still off")
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q after apply, want no changes", lines(again.Plan))
	}
}

func TestIncident3_MemoryChangeIsNextBootNotRestart(t *testing.T) {
	r, s := sessionRig(t)
	vm := r.tiny("tiny")
	r.converge(r.graph([]*model.VM{vm}, nil))
	before := r.guest(s, "tiny")

	vm.MemoryBytes = 128 << 20
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	want := []string{"next-boot update vm/qemu:///session/tiny [memory]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	after := r.guest(s, "tiny")
	t.Logf("QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	wantSameGuest(t, before, after)

	st := r.domain("tiny")
	if got := memKiB(st.Inactive); got != 131072 {
		t.Errorf("inactive XML: got memory %d KiB, want 131072", got)
	}
	if got := memKiB(st.Live); got != 65536 {
		t.Errorf("live XML: got memory %d KiB, want 65536 until the next boot", got)
	}
	// The next diff shows the change as pending, and applying it again
	// changes nothing.
	again, run := r.diff(g)
	if got := lines(again.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want the pending %q", got, want)
	}
	if c := again.Plan.Changes[0]; !strings.Contains(c.Reason, "pending until the guest's next shutdown") ||
		c.Before["memory"] != "max 64MiB, current 64MiB" || c.After["memory"] != "max 128MiB, current 128MiB" {
		t.Errorf("got pending line %+v", c)
	}
	r.apply(g, again, run)
	wantSameGuest(t, before, r.guest(s, "tiny"))
}

func TestIncident3_OutOfBandAutostartIsDrift(t *testing.T) {
	r, s := sessionRig(t)
	vm := r.tiny("tiny")
	g := r.graph([]*model.VM{vm}, nil)
	r.converge(g)
	before := r.guest(s, "tiny")

	// Someone runs virsh autostart by hand, in another process.
	if out, err := exec.Command("virsh", "-c", s.URI, "autostart", "tiny").CombinedOutput(); err != nil {
		t.Fatalf("virsh autostart: %v\n%s", err, out)
	}
	// A new site run (a new driver and connection: nothing remembered).
	r2 := newRig(t, sessionHost, r.d.Opts)
	obs, run := r2.diff(g)
	want := []string{"live update vm/qemu:///session/tiny [autostart]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	if c := obs.Plan.Changes[0]; c.Before["autostart"] != true || c.After["autostart"] != false {
		t.Fatalf("got %v -> %v, want true -> false", c.Before, c.After)
	}
	r2.apply(g, obs, run)
	after := r.guest(s, "tiny")
	t.Logf("QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	wantSameGuest(t, before, after)
	out, err := exec.Command("virsh", "-c", s.URI, "dominfo", "tiny").CombinedOutput()
	if err != nil || !regexpAutostart(string(out), "disable") {
		t.Errorf("virsh dominfo after apply: %v\n%s", err, out)
	}
}

func regexpAutostart(dominfo, want string) bool {
	for _, l := range strings.Split(dominfo, "\n") {
		if strings.HasPrefix(l, "Autostart:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "Autostart:")) == want
		}
	}
	return false
}

func TestIncident3_SeedSurvivesTmpWipe(t *testing.T) {
	r, s := sessionRig(t)
	// Every temporary directory site could use is this one.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	vm := r.tiny("tiny")
	vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\nhostname: tiny\n"}
	g := r.graph([]*model.VM{vm}, nil)
	r.converge(g)
	before := r.guest(s, "tiny")
	want := seed.Build(seed.Input{Hostname: "tiny", UserData: vm.CloudInit.UserData})
	got, err := os.ReadFile(filepath.Join(s.PoolDir, want.Name))
	if err != nil {
		t.Fatalf("seed volume in the pool: %v", err)
	}
	if !bytes.Equal(got, want.ISO) {
		t.Fatalf("seed volume holds %d bytes that differ from the %d built", len(got), len(want.ISO))
	}
	wipe := func() {
		entries, _ := os.ReadDir(tmp)
		if len(entries) > 0 {
			t.Errorf("site left %d entries in TMPDIR", len(entries))
		}
		if err := os.RemoveAll(tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(tmp, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	wipe()

	// A new run after the wipe, as after a host reboot.
	r2 := newRig(t, sessionHost, r.d.Opts)
	obs, _ := r2.diff(g)
	if obs.Plan.HasChanges() || len(obs.Plan.Blocked) > 0 {
		t.Fatalf("got %q %+v after wiping TMPDIR, want No changes", lines(obs.Plan), obs.Plan.Blocked)
	}

	// Changed user-data: a new seed volume and a next-boot media change;
	// the running guest's seed stays.
	vm.CloudInit.UserData += "runcmd: [true]\n"
	g = r2.graph([]*model.VM{vm}, nil)
	next := seed.Build(seed.Input{Hostname: "tiny", UserData: vm.CloudInit.UserData})
	obs, run := r2.diff(g)
	wantLines := []string{
		"next-boot update vm/qemu:///session/tiny [cdroms]",
		"live update vm/qemu:///session/tiny [owner]",
		"none create volume/qemu:///session/default/" + next.Name + " [size]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, wantLines) {
		t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	r2.apply(g, obs, run)
	after := r.guest(s, "tiny")
	t.Logf("QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	wantSameGuest(t, before, after)
	for _, name := range []string{want.Name, next.Name} {
		if _, err := os.Stat(filepath.Join(s.PoolDir, name)); err != nil {
			t.Errorf("seed %s: %v", name, err)
		}
	}
	wipe()

	// A deliberate restart picks up the new seed; nothing references the
	// old one any more, so the same apply removes it.
	obs, run = r2.diff(g, tenant+"/tiny")
	wantLines = []string{
		"next-boot update vm/qemu:///session/tiny [cdroms]",
		"live update vm/qemu:///session/tiny [owner]",
		"restart update vm/qemu:///session/tiny [domain id] GATE-VM-RESTART",
		"none delete volume/qemu:///session/default/" + want.Name + " [role]",
	}
	if got := lines(obs.Plan); !slices.Equal(got, wantLines) {
		t.Fatalf("got plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	r2.apply(g, obs, run, plan.GateVMRestart)
	restarted := r.guest(s, "tiny")
	t.Logf("restart: QEMU PID %d -> %d, domain ID %d -> %d", after.PID, restarted.PID, after.ID, restarted.ID)
	if restarted.PID == after.PID || restarted.ID == after.ID {
		t.Fatalf("guest did not restart: %+v -> %+v", after, restarted)
	}
	if _, err := os.Stat(filepath.Join(s.PoolDir, want.Name)); !os.IsNotExist(err) {
		t.Errorf("old seed still there: %v", err)
	}
	if again, _ := r2.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want No changes", lines(again.Plan))
	}
	wipe()
}

func TestIncident3_RestartNeedsGate(t *testing.T) {
	r, s := sessionRig(t)
	vm := r.tiny("tiny")
	r.converge(r.graph([]*model.VM{vm}, nil))
	first := r.guest(s, "tiny")
	vm.MemoryBytes = 128 << 20
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	before := r.guest(s, "tiny")
	t.Logf("memory change: QEMU PID %d -> %d, domain ID %d -> %d", first.PID, before.PID, first.ID, before.ID)
	wantSameGuest(t, first, before)

	// Asked to restart, without the gate: nothing happens.
	obs, run = r.diff(g, tenant+"/tiny")
	want := []string{
		"next-boot update vm/qemu:///session/tiny [memory]",
		"restart update vm/qemu:///session/tiny [domain id] GATE-VM-RESTART",
	}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateVMRestart)
	mid := r.guest(s, "tiny")
	t.Logf("without the gate: QEMU PID %d -> %d, domain ID %d -> %d", before.PID, mid.PID, before.ID, mid.ID)
	wantSameGuest(t, before, mid)
	// The driver refuses on its own too, should a caller skip the check.
	sp := obs.Steps[g.Steps[0].ID]
	if _, err := r.d.VMs().Apply(t.Context(), sp, backendsRun()); err == nil || !strings.Contains(err.Error(), "GATE-VM-RESTART") {
		t.Fatalf("got %v, want a refusal naming GATE-VM-RESTART", err)
	}
	wantSameGuest(t, before, r.guest(s, "tiny"))

	// With the gate the guest restarts and the change is live.
	obs, run = r.diff(g, tenant+"/tiny")
	r.apply(g, obs, run, plan.GateVMRestart)
	after := r.guest(s, "tiny")
	t.Logf("with the gate: QEMU PID %d -> %d, domain ID %d -> %d", before.PID, after.PID, before.ID, after.ID)
	if after.PID == before.PID || after.ID == before.ID || after.PID == 0 {
		t.Fatalf("guest did not restart: %+v -> %+v", before, after)
	}
	if got := memKiB(r.domain("tiny").Live); got != 131072 {
		t.Errorf("live memory: got %d KiB, want 131072", got)
	}
	if again, _ := r.diff(g, tenant+"/tiny"); again.Plan.HasChanges() {
		t.Errorf("got %q after the restart, want No changes", lines(again.Plan))
	}
}

//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/plan"
)

// TestKilledVMCreateConverges kills site apply (SIGKILL) after each
// state-changing libvirt call of a VM's creation with its NAT network
// and a disk, on a real system libvirtd (the network needs a bridge),
// through libvirtProxy, the daemon having carried the call out (see
// there why not also after its answer). See killEveryWrite for what is
// checked after each.
func TestKilledVMCreateConverges(t *testing.T) {
	s := systemDaemon(t)
	sock, ok := strings.CutPrefix(s.URI, "qemu:///system?socket=")
	if !ok {
		t.Fatalf("the system daemon's URI %q names no socket", s.URI)
	}
	// The guest has no OS: TCG runs its firmware whatever /dev/kvm can do.
	t.Setenv(libvirt.DomainTypeEnv, "qemu")
	pool, _ := s.Pool(t, "pool")
	fx := &vmKillFixture{virsh: s.Virsh, qemuPID: s.QEMUPID, host: "qemu:///system", pool: pool, running: true,
		lan: s.Name("lan"), vm: s.Name("vm"), otherVM: s.Name("ovm"), otherLan: s.Name("olan")}
	fx.start(t, "qemu:///system=qemu:///system?socket=", sock, s.CIDR(t), s.CIDR(t))
	fx.killEveryWrite(t)
}

// TestKilledSeedUploadConverges is TestKilledVMCreateConverges for a
// VM with a disk and a cloud-init seed, on a session libvirtd (no
// network, no guest started): the kills fall between the definition,
// the disk, the upload's marker, the seed volume, the stream into it
// and the marker's removal.
// Each kill that leaves the upload's marker empty (made, its note not
// yet written) costs the next run the 15 s it waits before it takes a
// marker that names no run for stale.
func TestKilledSeedUploadConverges(t *testing.T) {
	s := libvirttest.StartSession(t)
	virsh := func(args ...string) (string, error) {
		out, err := exec.Command("virsh", append([]string{"-q", "-c", s.URI}, args...)...).CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("virsh %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	for _, args := range [][]string{{"pool-define-as", "default", "dir", "--target", s.PoolDir}, {"pool-start", "default"}} {
		if _, err := virsh(args...); err != nil {
			t.Fatal(err)
		}
	}
	sock, ok := strings.CutPrefix(s.URI, "qemu+unix:///session?socket=")
	if !ok {
		t.Fatalf("the session daemon's URI %q names no socket", s.URI)
	}
	fx := &vmKillFixture{virsh: virsh, qemuPID: s.QEMUPID, host: "qemu:///session", pool: "default", seed: true, vm: "seeded", otherVM: "theirs"}
	fx.start(t, "qemu:///session=qemu+unix:///session?socket=", sock, "", "")
	fx.killEveryWrite(t)
}

// vmKillFixture is a libvirt daemon behind a libvirtProxy; tenant lab's
// spec, a VM with a disk (and a NAT network, a seed) that the test
// creates again and again; and tenant other's VM (and network) on the
// same host and pool, applied once.
type vmKillFixture struct {
	virsh func(args ...string) (string, error) // on the daemon, not through the proxy
	// qemuPID is the PID of the QEMU running a domain, 0 for none.
	qemuPID func(domain string) int
	proxy   *libvirtProxy
	host    string // the URI site.cue names
	pool    string
	file    string // lab.cue
	// lab's VM runs and autostarts when running, else it is only
	// defined; it has a seed when seed, a network when lan is set.
	running bool
	seed    bool
	lan, vm string
	// other's VM, and its network when lan is set
	otherVM, otherLan string
}

// start points every run, this process's and the killed ones, at the
// daemon's socket through the proxy (uriMap is SITE_LIBVIRT_URI_MAP up
// to the socket's path), writes the specs (the networks' CIDRs when
// lan is set) and applies tenant other's.
func (fx *vmKillFixture) start(t *testing.T, uriMap, sock, labCIDR, otherCIDR string) {
	t.Helper()
	fx.proxy = newLibvirtProxy(t, sock)
	t.Setenv(libvirt.URIMapEnv, uriMap+fx.proxy.sock)
	t.Setenv("NO_COLOR", "1")
	dir := writeSpecs(t, siteSrc(`hosts: kvm: uri: "`+fx.host+`"`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"kvm"}},
		grant{tenant: "other", domains: []string{"other.example.test"}, hosts: []string{"kvm"}}),
		map[string]string{
			"lab.cue":   vmKillTenant("lab", fx.lan, labCIDR, fx.vm, fx.pool, fx.running, fx.seed),
			"other.cue": vmKillTenant("other", fx.otherLan, otherCIDR, fx.otherVM, fx.pool, false, false),
		})
	fx.file = filepath.Join(dir, "lab.cue")
	specRunner(t, filepath.Join(dir, "other.cue"))(exitOK, "apply")
}

// vmKillTenant is a tenant's spec: VM vm with disk vm-root in pool, on
// network lan (none when ""), running and autostarted when running,
// with a cloud-init seed when seed.
func vmKillTenant(tenant, lan, cidr, vm, pool string, running, seed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package tenants\n\ntenants: %s: {\n\tdomain: %q\n", tenant, tenant+".example.test")
	if lan != "" {
		fmt.Fprintf(&b, "\tnetworks: %q: {host: \"kvm\", cidr: %q, autostart: %v}\n", lan, cidr, running)
	}
	fmt.Fprintf(&b, "\tvms: %q: {\n\t\thost: \"kvm\"\n\t\tautostart: %v\n\t\trunning: %v\n\t\tvcpus: 1\n\t\tmemory: \"64MiB\"\n", vm, running, running)
	fmt.Fprintf(&b, "\t\tdisks: [{pool: %q, name: %q, size: \"16MiB\"}]\n", pool, vm+"-root")
	if lan != "" {
		fmt.Fprintf(&b, "\t\tnics: [{network: %q}]\n", lan)
	}
	if seed {
		b.WriteString("\t\tcloudinit: user_data: \"#cloud-config\\n\"\n")
	}
	b.WriteString("\t}\n}\n")
	return b.String()
}

// killEveryWrite applies lab once whole, counting its state-changing
// calls, then for each of them: removes lab's VM,
// volumes and network, runs site apply and kills it at that call, and
// checks what a kill must leave. Tenant other's VM, network and disk
// are as they were; site diff plans exactly what the host lacks, and no
// gate; site apply (after breaking the dead run's lock, as its refusal
// says) converges without an --ack; the domain's owner element then
// lists every volume of lab's in the pool (no orphan, no upload marker
// left), so that a removal of the VM takes them with it.
func (fx *vmKillFixture) killEveryWrite(t *testing.T) {
	t.Helper()
	run := startKillable(t, "apply", "--yes", fx.file)
	fx.proxy.arm(run, 0)
	run.wait(t, "the whole creation")
	calls, writes := fx.proxy.disarm()
	t.Logf("the creation: %d calls: %v", len(calls), calls)
	fx.checkConverged(t, "the whole creation")

	locked := 0
	for at := 1; at <= len(writes); at++ {
		what := fmt.Sprintf("killed after call %d of %d (%s), its answer lost", at, len(writes), writes[at-1])
		fx.removeLab(t)
		others := fx.otherState(t)
		run := startKillable(t, "apply", "--yes", fx.file)
		fx.proxy.arm(run, at)
		killed := run.wait(t, what)
		fx.proxy.disarm()
		if !killed {
			t.Fatalf("%s: the run was not killed:\n%s", what, run.out.String())
		}
		fx.checkOthers(t, what, others)
		fx.checkDiffShowsWhatIsLeft(t, what)
		if fx.applyAfterKill(t, what) {
			locked++
		}
		fx.checkOthers(t, what+", after the next apply", others)
		fx.checkConverged(t, what)
	}
	if locked == 0 {
		t.Errorf("no killed run left its lock behind: the kills all fell outside the apply")
	}
}

// mustVirsh runs virsh on the daemon and fails the test when it fails.
func (fx *vmKillFixture) mustVirsh(t *testing.T, args ...string) string {
	t.Helper()
	out, err := fx.virsh(args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// virshField is the value of a "Name: value" line of virsh's output,
// "" when there is no such line or virsh failed.
func (fx *vmKillFixture) virshField(field string, args ...string) string {
	out, err := fx.virsh(args...)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// removeLab removes by hand what lab's apply makes, whatever state a
// run left it in, so that the next run creates it all again.
func (fx *vmKillFixture) removeLab(t *testing.T) {
	t.Helper()
	// virsh destroy asks QEMU to quit and waits for it, seconds a
	// run: kill it at once, as a host crash would.
	if pid := fx.qemuPID(fx.vm); pid != 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_, _ = fx.virsh("destroy", fx.vm)
	_, _ = fx.virsh("undefine", fx.vm)
	for _, v := range fx.labVolumes(t) {
		fx.mustVirsh(t, "vol-delete", "--pool", fx.pool, v)
	}
	if fx.lan == "" {
		return
	}
	bridge := fx.virshField("Bridge", "net-info", fx.lan)
	_, _ = fx.virsh("net-destroy", fx.lan)
	_, _ = fx.virsh("net-undefine", fx.lan)
	// libvirt names the next network's bridge after the first free
	// virbrN it knows of: wait until this one has left the kernel.
	for bridge != "" {
		if _, err := os.Stat(filepath.Join("/sys/class/net", bridge)); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// labVolumes is every volume in the pool but other's disk, sorted.
func (fx *vmKillFixture) labVolumes(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(fx.mustVirsh(t, "vol-list", "--pool", fx.pool), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] != fx.otherVM+"-root" {
			out = append(out, f[0])
		}
	}
	sort.Strings(out)
	return out
}

// otherState is what tenant other has on the host, as virsh shows it.
func (fx *vmKillFixture) otherState(t *testing.T) string {
	t.Helper()
	args := [][]string{{"dumpxml", "--inactive", fx.otherVM}, {"dominfo", fx.otherVM}, {"vol-info", "--pool", fx.pool, fx.otherVM + "-root"}}
	if fx.otherLan != "" {
		args = append(args, []string{"net-dumpxml", "--inactive", fx.otherLan}, []string{"net-info", fx.otherLan})
	}
	var b strings.Builder
	for _, a := range args {
		b.WriteString(fx.mustVirsh(t, a...))
	}
	return b.String()
}

func (fx *vmKillFixture) checkOthers(t *testing.T, what, before string) {
	t.Helper()
	if after := fx.otherState(t); after != before {
		t.Errorf("%s: tenant other's VM, network or disk changed:\nbefore:\n%s\nafter:\n%s", what, before, after)
	}
}

// labDiff runs site diff on lab in this process, as JSON.
func (fx *vmKillFixture) labDiff(t *testing.T, what string) (int, plan.Plan, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run([]string{"diff", "--format", "json", "--detailed-exitcode", fx.file}, &out, &errOut)
	var p plan.Plan
	if code == exitOK || code == exitChanges {
		if err := json.Unmarshal(out.Bytes(), &p); err != nil {
			t.Fatalf("%s: diff's JSON: %v\n%s", what, err, out.String())
		}
	}
	return code, p, errOut.String()
}

// whatIsLeft is what site diff must plan for lab, as "action key", read
// from the host with virsh: the network, the disk, the seed and the
// domain, each where it is missing or not yet as the spec says.
func (fx *vmKillFixture) whatIsLeft(t *testing.T) map[string]bool {
	t.Helper()
	left := map[string]bool{}
	yes := func(v string) bool { return v == "yes" || v == "enable" || v == "running" }
	if fx.lan != "" {
		key := "network/" + fx.host + "/" + fx.lan
		switch {
		case fx.virshField("Name", "net-info", fx.lan) == "":
			left["create "+key] = true
		case !yes(fx.virshField("Active", "net-info", fx.lan)) || !yes(fx.virshField("Autostart", "net-info", fx.lan)):
			left["update "+key] = true
		}
	}
	vols := fx.labVolumes(t)
	if !slices.Contains(vols, fx.vm+"-root") {
		left["create volume/"+fx.host+"/"+fx.pool+"/"+fx.vm+"-root"] = true
	}
	if fx.seed {
		seeds, marked := 0, false
		for _, v := range vols {
			seeds += btoi(strings.HasPrefix(v, "seed-"))
			marked = marked || strings.Contains(v, ".uploading")
		}
		if seeds == 0 || marked {
			left["create seed"] = true // its name is the seed's hash: compared by kind
		}
	}
	key := "vm/" + fx.host + "/" + fx.vm
	switch {
	case fx.virshField("Name", "dominfo", fx.vm) == "":
		left["create "+key] = true
	case yes(fx.virshField("State", "dominfo", fx.vm)) != fx.running || yes(fx.virshField("Autostart", "dominfo", fx.vm)) != fx.running:
		left["update "+key] = true
	}
	return left
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkDiffShowsWhatIsLeft runs site diff after a kill: it must plan
// exactly what the host lacks (whatIsLeft), none of it behind a gate.
func (fx *vmKillFixture) checkDiffShowsWhatIsLeft(t *testing.T, what string) {
	t.Helper()
	want := fx.whatIsLeft(t)
	code, p, stderr := fx.labDiff(t, what)
	wantCode := exitOK
	if len(want) > 0 {
		wantCode = exitChanges
	}
	got := map[string]bool{}
	for _, c := range p.Changes {
		k := string(c.Action) + " " + c.Key
		if strings.HasPrefix(c.Key, "volume/"+fx.host+"/"+fx.pool+"/seed-") {
			k = string(c.Action) + " seed"
		}
		got[k] = true
		if len(c.Gates) > 0 {
			t.Errorf("%s: diff puts %s %s behind %v", what, c.Action, c.Key, c.Gates)
		}
	}
	if code != wantCode || !reflect.DeepEqual(got, want) || len(p.Blocked) > 0 {
		t.Errorf("%s: diff exit %d, want %d; plans %v, want %v (volumes %v); blocked %+v\nstderr:\n%s",
			what, code, wantCode, got, want, fx.labVolumes(t), p.Blocked, stderr)
	}
}

// applyAfterKill applies in this process as an operator would after a
// killed run, breaking the dead run's lock when it refuses the apply;
// the apply must converge with no --ack. It says whether the lock had
// to be broken.
func (fx *vmKillFixture) applyAfterKill(t *testing.T, what string) bool {
	t.Helper()
	apply := func() (int, string, string) {
		var out, errOut bytes.Buffer
		code := run([]string{"apply", "--yes", fx.file}, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	code, stdout, stderr := apply()
	broke := lockRefused(code, stderr)
	if broke {
		if !strings.Contains(stderr, "site unlock lab") {
			t.Errorf("%s: the lock's refusal does not say how to break it:\n%s", what, stderr)
		}
		specRunner(t, fx.file)(exitOK, "unlock", "lab", "--ack", "GATE-LOCK-BREAK")
		code, stdout, stderr = apply()
	}
	if code != exitOK {
		t.Errorf("%s: the apply after the kill exit %d, want 0\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
	return broke
}

// checkConverged asserts that lab's VM (and network) are as the spec
// says, the next diff is empty, and every volume of lab's in the pool
// (its disk and, with a seed, one seed) is listed in the domain's owner
// element as made by site.
func (fx *vmKillFixture) checkConverged(t *testing.T, what string) {
	t.Helper()
	if code, p, stderr := fx.labDiff(t, what); code != exitOK {
		t.Errorf("%s: diff after the apply exit %d, want 0: %+v\n%s", what, code, p.Changes, stderr)
	}
	if left := fx.whatIsLeft(t); len(left) > 0 {
		t.Errorf("%s: after the apply the host still lacks %v", what, left)
	}
	meta := fx.mustVirsh(t, "metadata", fx.vm, libvirt.OwnerNS)
	vols := fx.labVolumes(t)
	for _, v := range vols {
		if !strings.Contains(meta, fmt.Sprintf(`name="%s"`, v)) {
			t.Errorf("%s: volume %s/%s is in the pool but the owner element of %s does not list it (a removal of the VM would leave it):\n%s", what, fx.pool, v, fx.vm, meta)
		}
	}
	if want := 1 + btoi(fx.seed); len(vols) != want || !slices.Contains(vols, fx.vm+"-root") {
		t.Errorf("%s: lab's volumes in the pool are %v, want its disk %s-root and %d seed", what, vols, fx.vm, want-1)
	}
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func TestOrphanDomainNeedsDestroyGate(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	keep, old := r.vm("a-keep"), r.vm("b-old")
	old.Disks = []model.Disk{{Pool: "default", Name: "old-root", SizeBytes: 1 << 20}}
	r.converge(r.graph([]*model.VM{keep, old}, nil))

	g := r.graph([]*model.VM{keep}, nil)
	obs, run := r.diff(g)
	want := []string{"destroy delete vm/" + r.host + "/b-old [running,volumes] GATE-VM-DESTROY"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if got := obs.Plan.Changes[0].Step; got != "vm/"+r.host+"/b-old" {
		t.Errorf("the removal is in step %s, want a step of its own", got)
	}
	if got := obs.Plan.Changes[0].Before["volumes"]; !slices.Equal(got.([]string), []string{"default/old-root"}) {
		t.Errorf("got volumes %v, want [default/old-root]", got)
	}
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateVMDestroy)
	if st := r.domain("b-old"); !st.Running {
		t.Fatal("the orphan stopped without the gate")
	}
	r.apply(g, obs, run, plan.GateVMDestroy)
	if _, err := r.conn().LookupDomainByName("b-old"); !conn.IsCode(err, libvirt.ERR_NO_DOMAIN) {
		t.Errorf("b-old still defined: %v", err)
	}
	h, err := r.d.observe(r.host)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.Volume("default", "old-root", nil); err != nil || v.Exists {
		t.Errorf("old-root: exists=%v err=%v, want deleted", v != nil && v.Exists, err)
	}
	if st := r.domain("a-keep"); !st.Running {
		t.Error("the declared guest stopped")
	}
}

// TestPendingChangesMadeByHand: a definition changed out of band (virsh
// edit on the running guest) shows as pending, and so does a spec that
// then agrees with it.
func TestPendingChangesMadeByHand(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{}), Options{})
	vm := r.vm("web")
	g := r.graph([]*model.VM{vm}, nil)
	r.converge(g)
	before := r.domain("web")

	dom, err := r.conn().LookupDomainByName("web")
	if err != nil {
		t.Fatal(err)
	}
	defer dom.Free()
	x, err := dom.GetXMLDesc(libvirt.DOMAIN_XML_INACTIVE)
	if err != nil {
		t.Fatal(err)
	}
	var def libvirtxml.Domain
	if err := def.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	def.VCPU.Value = 2
	x, _ = def.Marshal()
	if _, err := r.conn().DomainDefineXML(x); err != nil {
		t.Fatal(err)
	}

	// The spec still says 1 vCPU: the hand edit is config drift to undo.
	obs, _ := r.diff(g)
	want := []string{"next-boot update vm/" + r.host + "/web [vcpus]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if r := obs.Plan.Changes[0].Reason; !strings.Contains(r, "nothing stays pending") {
		t.Errorf("got reason %q, want it to say nothing stays pending", r)
	}
	// The spec adopts 2 vCPUs: nothing to write, but the change is
	// pending until the guest's next shutdown, and diff says so.
	vm.VCPUs = 2
	obs, _ = r.diff(g)
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	c := obs.Plan.Changes[0]
	if !strings.HasPrefix(c.Reason, "already in the persistent definition") || c.Before["vcpus"] != "1 of max 1" || c.After["vcpus"] != "2 of max 2" {
		t.Errorf("got %+v", c)
	}
	if after := r.domain("web"); after.ID != before.ID {
		t.Errorf("domain ID %d -> %d", before.ID, after.ID)
	}
}

func TestStartStopAndTransient(t *testing.T) {
	transient := `<domain type="test"><name>tr</name><memory>65536</memory><vcpu>1</vcpu><os><type arch="i686">hvm</type></os>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="t1"/></metadata><test:transient/></domain>`
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{Domains: []string{transient}}), Options{})
	vm := r.vm("web")
	tr := r.vm("tr")
	g := r.graph([]*model.VM{vm, tr}, nil)
	obs, run := r.diff(g)
	var trLines []string
	for _, c := range obs.Plan.Changes {
		if c.Key == "vm/"+r.host+"/tr" {
			trLines = append(trLines, line(c)+" "+strings.Join(slices.Sorted(maps.Keys(c.After)), ","))
		}
	}
	if !slices.Contains(trLines, "none update vm/"+r.host+"/tr [persistent] persistent") {
		t.Fatalf("got %q, want the transient domain made persistent", trLines)
	}
	r.apply(g, obs, run)
	if st := r.domain("tr"); st.Inactive == nil || !st.Running {
		t.Fatalf("tr: persistent=%v running=%v, want a running persistent domain", st.Inactive != nil, st.Running)
	}

	// running: false needs GATE-VM-STOP; then running: true starts it live.
	vm.Running = false
	obs, run = r.diff(g)
	_, err := r.tryApply(g, obs, run)
	wantGatesMissing(t, err, plan.GateVMStop)
	r.apply(g, obs, run, plan.GateVMStop)
	if st := r.domain("web"); st.Running {
		t.Fatal("web still runs after an acknowledged stop")
	}
	vm.Running = true
	obs, run = r.diff(g)
	want := []string{"live update vm/" + r.host + "/web [running]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	r.apply(g, obs, run)
	if st := r.domain("web"); !st.Running {
		t.Fatal("web did not start")
	}
}

func TestParseURIMap(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]string
		wantErr bool
	}{
		{"", map[string]string{}, false},
		{"qemu:///session=qemu+unix:///session?socket=/s/libvirt-sock", map[string]string{"qemu:///session": "qemu+unix:///session?socket=/s/libvirt-sock"}, false},
		{"a=b, c=d\n", map[string]string{"a": "b", "c": "d"}, false},
		{"qemu:///system", nil, true},
		{"=b", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseURIMap(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && !maps.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBalloonIsLive: with a balloon and room under the running maximum,
// current memory changes live and nothing stays pending.
func TestBalloonIsLive(t *testing.T) {
	dom := `<domain type="test"><name>web</name><memory unit="KiB">131072</memory><currentMemory unit="KiB">65536</currentMemory>` +
		`<vcpu>1</vcpu><os><type arch="i686">hvm</type></os>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="t1"/></metadata>` +
		`<devices><memballoon model="virtio"/></devices></domain>`
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{Domains: []string{dom}}), Options{})
	before := r.domain("web")
	vm := r.vm("web")
	vm.MemoryBytes = 128 << 20
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	want := []string{"next-boot update vm/" + r.host + "/web [memory]", "live update vm/" + r.host + "/web [current memory]"}
	if got := lines(obs.Plan); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if reason := obs.Plan.Changes[0].Reason; !strings.Contains(reason, "nothing stays pending") {
		t.Errorf("got reason %q", reason)
	}
	r.apply(g, obs, run)
	after := r.domain("web")
	if after.ID != before.ID {
		t.Errorf("domain ID %d -> %d", before.ID, after.ID)
	}
	if got := domain.ToKiB(after.Live.CurrentMemory.Value, after.Live.CurrentMemory.Unit); got != 131072 {
		t.Errorf("live current memory: got %d KiB, want 131072", got)
	}
	if again, _ := r.diff(g); again.Plan.HasChanges() {
		t.Errorf("got %q, want no changes", lines(again.Plan))
	}
}

// TestExistingVolumeKeepsItsFormat: a volume the user brought (not ours,
// qcow2) is attached with its own format and never listed as ours.
func TestExistingVolumeKeepsItsFormat(t *testing.T) {
	pool := `<pool type="dir"><name>default</name><target><path>/default-pool</path></target>` +
		`<volume><name>img</name><capacity unit="bytes">1048576</capacity><target><format type="qcow2"/></target></volume></pool>`
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{Pools: []string{pool}}), Options{})
	vm := r.vm("web")
	vm.Disks = []model.Disk{{Pool: "default", Name: "img", SizeBytes: 1048576}}
	r.converge(r.graph([]*model.VM{vm}, nil))
	st := r.domain("web")
	if got := st.Inactive.Devices.Disks[0].Driver.Type; got != "qcow2" {
		t.Errorf("got driver type %q, want qcow2", got)
	}
	if o, _, _ := ownership.Parse(st.Inactive.Metadata.XML); o.String() != "tenant=t1" {
		t.Errorf("got owner %q, want the user's volume not listed as ours", o.String())
	}
}

// TestNewFromEnvReadsThroughGetenv: the map and the shutdown timeout
// come from the run's environment, and a malformed value fails the
// steps that connect, naming the variable.
func TestNewFromEnvReadsThroughGetenv(t *testing.T) {
	if err := Available(); err != nil {
		libvirttest.Need(t, err.Error())
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	d := NewFromEnv(runstate.Start(&backends.Run{Getenv: env(map[string]string{URIMapEnv: "qemu:///remapped=test:///default", ShutdownTimeoutEnv: "7s"})}))
	defer d.Close()
	if _, err := d.Conn("qemu:///remapped"); err != nil {
		t.Fatalf("mapped URI: %v", err)
	}
	if d.Opts.ShutdownTimeout != 7*time.Second {
		t.Errorf("shutdown timeout: got %v, want 7s", d.Opts.ShutdownTimeout)
	}
	bad := NewFromEnv(runstate.Start(&backends.Run{Getenv: env(map[string]string{ShutdownTimeoutEnv: "soon"})}))
	defer bad.Close()
	if _, err := bad.Conn("test:///default"); err == nil || !strings.Contains(err.Error(), ShutdownTimeoutEnv) {
		t.Fatalf("got %v, want an error naming %s", err, ShutdownTimeoutEnv)
	}
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// testDomain is a test driver domain named name with owner (tenant,
// "" for none) and the given <disk> elements.
func testDomain(name, tenant string, disks ...string) string {
	meta := ""
	if tenant != "" {
		meta = `<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="` + tenant + `"/></metadata>`
	}
	return `<domain type="test"><name>` + name + `</name><memory>65536</memory><vcpu>1</vcpu><os><type arch="i686">hvm</type></os>` +
		meta + `<devices>` + strings.Join(disks, "") + `</devices></domain>`
}

// volumeDisk is a <disk> on volume pool/name at target dev.
func volumeDisk(pool, name, dev string) string {
	return `<disk type="volume" device="disk"><driver name="qemu" type="raw"/><source pool="` + pool + `" volume="` + name + `"/><target dev="` + dev + `"/></disk>`
}

// fileDisk is a <disk> on the file path at target dev, as virt-install
// writes one.
func fileDisk(path, dev string) string {
	return `<disk type="file" device="disk"><driver name="qemu" type="raw"/><source file="` + path + `"/><target dev="` + dev + `"/></disk>`
}

// trustPool is the test driver's "default" pool holding volumes of 1 MiB.
func trustPool(names ...string) string {
	var b strings.Builder
	b.WriteString(`<pool type="dir"><name>default</name><target><path>/default-pool</path></target>`)
	for _, n := range names {
		b.WriteString(`<volume><name>` + n + `</name><capacity unit="bytes">1048576</capacity><target><format type="raw"/></target></volume>`)
	}
	b.WriteString(`</pool>`)
	return b.String()
}

// TestTrust_LiveVolumeOfAnotherDomain: vet knows only the volumes the
// specs declare, so a tenant could name as its disk, or as the base of
// one, a volume that another tenant's domain has attached (a VM dropped
// from its spec but still defined, or a disk name the specs never
// show) or that a domain site does not manage has attached (by pool and
// volume, or by the file's path, as virt-install writes it): attached,
// the guest gets that data; as a base, an overlay reads it and a clone
// copies it. The VM's step is refused, naming the volume, the domain
// and its owner, whether that domain runs or not.
func TestTrust_LiveVolumeOfAnotherDomain(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{
			testDomain("db", "victim", volumeDisk("default", "db-data", "vda")),
			testDomain("legacy", "", fileDisk("/default-pool/legacy-root", "vda")),
			testDomain("app", "victim", volumeDisk("default", "app-root", "vdb")),
			// made's owner element lists its disk: site made it, and the
			// removal of made deletes it.
			strings.Replace(testDomain("made", "victim", volumeDisk("default", "made-root", "vda")), `tenant="victim"/>`,
				`tenant="victim"><site:volume pool="default" name="made-root" role="disk"/></site:owner>`, 1),
		},
		Pools: []string{trustPool("db-data", "legacy-root", "app-root", "made-root")},
	}), Options{})
	// db is defined but shut off: a disk of a guest that does not run
	// is its data all the same.
	dom, err := r.conn().LookupDomainByName("db")
	if err != nil {
		t.Fatal(err)
	}
	if err := dom.Destroy(); err != nil {
		t.Fatal(err)
	}
	_ = dom.Free()

	// removes is how a refusal names the step that frees the volume: the
	// removal of the other tenant's domain, and the command that runs it.
	removes := func(dom, owner string) string {
		id := "vm/" + r.host + "/" + dom
		return "the step that removes domain " + dom + " is " + id + " of tenant " + owner + ", planned once " + owner + "'s spec no longer declares " + dom +
			" (site apply tenants/" + owner + ".cue --target '" + id + "' --ack GATE-VM-DESTROY"
	}
	disk := func(vm, name, base string, clone bool) *model.VM {
		v := r.vm(vm)
		v.Disks = []model.Disk{{Pool: "default", Name: name, SizeBytes: 1 << 20, Base: base, Clone: clone}}
		return v
	}
	tests := []struct {
		vm   *model.VM
		want []string
	}{
		{disk("attach", "db-data", "", false), []string{"volume default/db-data", `domain db of tenant "victim"`, "defined, not running", "name another volume", "virsh -c " + r.host + " detach-disk db vda --config",
			removes("db", "victim"), "keeps the volume, which site did not make for domain db"}},
		{disk("byfile", "legacy-root", "", false), []string{"volume default/legacy-root", "domain legacy, a domain site does not manage", "name another volume",
			"have the operator remove domain legacy, which no site step removes (it carries no site owner element)"}},
		{disk("running", "app-root", "", false), []string{"volume default/app-root", `domain app of tenant "victim"`, "running", removes("app", "victim")}},
		{disk("claim", "made-root", "", false), []string{removes("made", "victim"), "that removal deletes the volume too, which site made for domain made"}},
		{disk("overlay", "new-root", "db-data", false), []string{"base volume default/db-data", `domain db of tenant "victim"`, "name another base", removes("db", "victim")}},
		{disk("copy", "new-copy", "legacy-root", true), []string{"base volume default/legacy-root", "domain legacy, a domain site does not manage", "name another base",
			"have the operator remove domain legacy, which no site step removes"}},
	}
	var vms []*model.VM
	for _, tt := range tests {
		vms = append(vms, tt.vm)
	}
	obs, _ := r.diff(r.graph(vms, nil))
	got, kinds := map[string]string{}, map[string]string{}
	for _, b := range obs.Plan.Blocked {
		got[b.Step] = b.Reason
		if b.Hint != nil {
			kinds[b.Step] = b.Hint.Kind
		}
	}
	for _, tt := range tests {
		t.Run(tt.vm.Name, func(t *testing.T) {
			reason, ok := got["vm/"+r.host+"/"+tt.vm.Name]
			if !ok {
				t.Fatalf("VM %s was not refused; plan %q", tt.vm.Name, lines(obs.Plan))
			}
			if k := kinds["vm/"+r.host+"/"+tt.vm.Name]; k != hint.FreeVolume.String() {
				t.Errorf("hint kind %q, want %s", k, hint.FreeVolume)
			}
			for _, w := range tt.want {
				if !strings.Contains(reason, w) {
					t.Errorf("got %q, want it to contain %q", reason, w)
				}
			}
		})
	}
	if len(obs.Plan.Changes) != 0 {
		t.Errorf("got changes %q, want none: every step is refused", lines(obs.Plan))
	}
}

// TestTrust_LiveVolumeOwnAndShared: what the check must not refuse. A
// VM's own disks stay its own when another domain attaches them later
// (the converged case is not looked at again); a base image no domain
// attaches is every tenant's, even when other tenants' disks are
// overlays on it; and a tenant's VM may attach a volume its own other
// domain has.
func TestTrust_LiveVolumeOwnAndShared(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{
			testDomain("sibling", tenant, volumeDisk("default", "shared", "vda")),
		},
		Pools: []string{trustPool("os.img", "shared", "web-data")},
	}), Options{})
	web := r.vm("web")
	web.Disks = []model.Disk{{Pool: "default", Name: "web-data", SizeBytes: 1 << 20}}
	sib := r.vm("sibling")
	sib.Disks = []model.Disk{{Pool: "default", Name: "shared", SizeBytes: 1 << 20}}
	r.converge(r.graph([]*model.VM{web, sib}, nil))

	// Another tenant's domain and a foreign one attach web's disk, and
	// another tenant's VM has an overlay on the operator's image.
	for _, x := range []string{
		testDomain("other", "victim", volumeDisk("default", "web-data", "vda")),
		testDomain("legacy", "", fileDisk("/default-pool/web-data", "vda")),
		testDomain("vic", "victim", `<disk type="file" device="disk"><driver name="qemu" type="qcow2"/><source file="/default-pool/vic-root"/>`+
			`<backingStore type="file"><format type="raw"/><source file="/default-pool/os.img"/></backingStore><target dev="vda"/></disk>`),
	} {
		dom, err := r.conn().DomainDefineXML(x)
		if err != nil {
			t.Fatal(err)
		}
		_ = dom.Free()
	}
	root := r.vm("root")
	root.Disks = []model.Disk{{Pool: "default", Name: "root-disk", SizeBytes: 1 << 20, Base: "os.img"}}
	both := r.vm("both")
	both.Disks = []model.Disk{{Pool: "default", Name: "shared", SizeBytes: 1 << 20}, {Pool: "default", Name: "both-root", SizeBytes: 1 << 20, Base: "os.img", Clone: true}}
	g := r.graph([]*model.VM{web, sib, root, both}, nil)
	obs, _ := r.diff(g)
	if len(obs.Plan.Blocked) > 0 {
		t.Fatalf("blocked: %+v, want nothing refused", obs.Plan.Blocked)
	}
	r.converge(g)
}

// TestTrust_LiveVolumeAsNewBase: a disk made again from a new base (a
// rebase, behind its gate) is refused like a new disk when another
// tenant's domain has that base attached.
func TestTrust_LiveVolumeAsNewBase(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{testDomain("db", "victim", volumeDisk("default", "db-data", "vda"))},
		Pools:   []string{trustPool("os.img", "db-data")},
	}), Options{})
	web := r.vm("web")
	web.Running = false
	web.Disks = []model.Disk{{Pool: "default", Name: "web-root", SizeBytes: 1 << 20, Base: "os.img", Clone: true}}
	r.converge(r.graph([]*model.VM{web}, nil))
	web.Disks[0].Base = "db-data"
	obs, _ := r.diff(r.graph([]*model.VM{web}, nil))
	if len(obs.Plan.Blocked) != 1 {
		t.Fatalf("blocked: got %+v, plan %q, want the VM step refused", obs.Plan.Blocked, lines(obs.Plan))
	}
	for _, w := range []string{"disk web-root starts from base volume default/db-data", `domain db of tenant "victim"`, "a copy of it would copy that domain's data"} {
		if reason := obs.Plan.Blocked[0].Reason; !strings.Contains(reason, w) {
			t.Errorf("got %q, want it to contain %q", reason, w)
		}
	}
}

// TestTrust_LiveVolumeInInactivePool: while a declared pool does not run,
// its volumes cannot be read, but the domains' definitions can: a disk,
// or the base of one, that another tenant's domain has attached is
// refused in the diff already, not only when apply reads the pool. (The
// test driver cannot read an inactive pool's definition: a session
// daemon.)
func TestTrust_LiveVolumeInInactivePool(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	r.upload("images", "os.img", pattern(1<<20))
	r.upload("images", "db-data", pattern(1<<20))
	dom, err := r.conn().DomainDefineXML(`<domain type="qemu"><name>db</name><memory>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="victim"/></metadata><devices>` +
		volumeDisk("images", "db-data", "vda") + volumeDisk("images", "os.img", "vdb") + `</devices></domain>`)
	if err != nil {
		t.Fatal(err)
	}
	_ = dom.Free()
	src := filepath.Join(t.TempDir(), "os.img")
	if err := os.WriteFile(src, pattern(1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	data := r.stopped("data", pool, model.Disk{Pool: "images", Name: "db-data", SizeBytes: 1 << 20})
	root := r.stopped("root", pool, model.Disk{Pool: "images", Name: "root-disk", SizeBytes: 1 << 20, Base: "os.img"})
	root.Images = []*model.Image{{Pool: pool, Name: "os.img", Source: src}}
	r.stopPool("images")
	obs, _ := r.diff(r.graph([]*model.VM{data, root}, nil))
	got := map[string]string{}
	for _, b := range obs.Plan.Blocked {
		got[b.Step] = b.Reason
	}
	for vm, want := range map[string]string{
		"data": `volume images/db-data is attached to domain db of tenant "victim"`,
		"root": `base volume images/os.img, which is attached to domain db of tenant "victim"`,
	} {
		if reason := got["vm/"+r.host+"/"+vm]; !strings.Contains(reason, want) {
			t.Errorf("VM %s: got %q, want it to contain %q; plan %q", vm, reason, want, lines(obs.Plan))
		}
	}
}

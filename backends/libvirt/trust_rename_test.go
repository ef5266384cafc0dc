//go:build cgo && libvirt_dlopen

package libvirt

import (
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// tenantsGraph compiles the tenants' VMs on the rig's host, with the
// steps that remove what each no longer declares, as a diff of their
// files together does.
func (r *rig) tenantsGraph(vms map[string][]*model.VM) *graph.Graph {
	r.t.Helper()
	spec := &model.Spec{}
	for name, list := range vms {
		for _, v := range list {
			v.Tenant = name
		}
		spec.Tenants = append(spec.Tenants, &model.Tenant{Name: name, Domain: name + ".example.net.", VMs: list})
	}
	return r.discovered(spec)
}

// TestTrust_RenameKeepsOnlyItsOwn: the removal of a domain its tenant
// no longer declares keeps the volumes that tenant's spec names (a VM
// renamed in the spec keeps its disks). Another tenant naming those
// volumes, or the removed domain's name, must not make the removal keep
// them for it, nor have its VM take them: victim dropped VM db from its
// spec, and evil names db's disk as its own and declares a VM db.
func TestTrust_RenameKeepsOnlyItsOwn(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{
			testDomain("db", "victim", volumeDisk("default", "db-data", "vda")),
			testDomain("app", "victim", volumeDisk("default", "app-root", "vda")),
		},
		Pools: []string{trustPool("db-data", "app-root")},
	}), Options{})
	// db's owner element lists the disk site made for it.
	dom, err := r.conn().LookupDomainByName("db")
	if err != nil {
		t.Fatal(err)
	}
	o := &ownership.Owner{Tenant: "victim", Volumes: []ownership.Volume{{Pool: "default", Name: "db-data", Role: "disk"}}}
	if err := dom.SetMetadata(2, o.Element(), ownership.Prefix, OwnerNS, 2); err != nil { // DOMAIN_METADATA_ELEMENT, AFFECT_CONFIG
		t.Fatal(err)
	}
	_ = dom.Free()

	app := r.vm("app")
	app.Disks = []model.Disk{{Pool: "default", Name: "app-root", SizeBytes: 1 << 20}}
	thief := r.vm("thief")
	thief.Disks = []model.Disk{{Pool: "default", Name: "db-data", SizeBytes: 1 << 20}}
	squat := r.vm("db")
	squat.Disks = []model.Disk{{Pool: "default", Name: "squat-root", SizeBytes: 1 << 20}}
	// A VM db of evil's takes the removal's step ID, so it is planned
	// on its own: refused, as the domain is victim's, naming the step
	// that removes it in the same run (which once it said to find in a
	// run of victim's file alone, under another ID).
	obs, _ := r.diff(r.tenantsGraph(map[string][]*model.VM{"victim": {app}, "evil": {squat}}))
	want := `domain db on ` + r.host + ` belongs to tenant "victim", not "evil", and victim no longer declares it: its removal is step vm/` + r.host + `/db@victim in a run of these PATHs`
	wantHint := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: "victim", InRun: true, Target: "vm/" + r.host + "/db@victim", Gate: string(plan.GateVMDestroy)}.ToJSON()
	if len(obs.Plan.Blocked) != 1 || !strings.Contains(obs.Plan.Blocked[0].Reason, want) || obs.Plan.Blocked[0].Hint == nil || *obs.Plan.Blocked[0].Hint != *wantHint {
		t.Errorf("evil's VM db: got blocked %+v, plan %q, want it refused with %q and hint %+v", obs.Plan.Blocked, lines(obs.Plan), want, wantHint)
	}

	obs, _ = r.diff(r.tenantsGraph(map[string][]*model.VM{"victim": {app}, "evil": {thief}}))
	blocked := map[string]string{}
	for _, b := range obs.Plan.Blocked {
		blocked[b.Step] = b.Reason
	}
	if want := `volume default/db-data is attached to domain db of tenant "victim"`; !strings.Contains(blocked["vm/"+r.host+"/thief"], want) {
		t.Errorf("evil's VM thief: got %q, want it refused with %q; plan %q", blocked["vm/"+r.host+"/thief"], want, lines(obs.Plan))
	}
	var removal string
	for _, c := range obs.Plan.Changes {
		if c.Step == "vm/"+r.host+"/db" && c.Tenant == "victim" {
			removal = c.Reason
			if vols, _ := c.Before["volumes"].([]string); len(vols) != 1 || vols[0] != "default/db-data" {
				t.Errorf("victim's removal of db deletes %v, want default/db-data: evil's spec does not keep it", c.Before["volumes"])
			}
		}
	}
	if removal == "" {
		t.Fatalf("no removal of victim's db planned; plan %q, blocked %v", lines(obs.Plan), blocked)
	}
	if strings.Contains(removal, "keeps") {
		t.Errorf("victim's removal of db: got %q, want it to keep nothing", removal)
	}
}

// TestTrust_NetworkCollisionNamesTheRemoval: as for a VM, a network of
// evil's named like the network victim dropped is refused, and the
// refusal names the step of the same run that removes victim's.
func TestTrust_NetworkCollisionNamesTheRemoval(t *testing.T) {
	mark := func(name, bridge, cidr string) string {
		return `<network><name>` + name + `</name><bridge name="` + bridge + `"/><ip address="` + cidr + `" netmask="255.255.255.0"/>` +
			`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="victim"/></metadata></network>`
	}
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{Networks: []string{mark("lan", "virbr21", "10.91.0.1"), mark("keep", "virbr22", "10.92.0.1")}}), Options{})
	spec := &model.Spec{Tenants: []*model.Tenant{
		{Name: "victim", Domain: "victim.example.net.", Networks: []*model.Network{{Tenant: "victim", Name: "keep", Host: r.host, CIDR: "10.92.0.0/24"}}},
		{Name: "evil", Domain: "evil.example.net.", Networks: []*model.Network{{Tenant: "evil", Name: "lan", Host: r.host, CIDR: "10.93.0.0/24"}}},
	}}
	obs, _ := r.diff(r.discovered(spec))
	blocked := map[string]plan.Blocked{}
	for _, b := range obs.Plan.Blocked {
		blocked[b.Step] = b
	}
	want := `network lan on ` + r.host + ` belongs to tenant "victim", not "evil", and victim no longer declares it: its removal is step network/` + r.host + `/lan@victim in a run of these PATHs`
	wantHint := hint.Hint{Kind: hint.RemoveOtherFirst, Tenant: "victim", InRun: true, Target: "network/" + r.host + "/lan@victim", Gate: string(plan.GateNetDestroy)}.ToJSON()
	if got := blocked["network/"+r.host+"/lan"]; !strings.Contains(got.Reason, want) || got.Hint == nil || *got.Hint != *wantHint {
		t.Errorf("evil's network lan: got %q with hint %+v, want it refused with %q and hint %+v; plan %q", got.Reason, got.Hint, want, wantHint, lines(obs.Plan))
	}
}

// TestRenameOnlyWhenOnePairing: a domain the tenant dropped is renamed
// to a new VM only when that VM is the one new VM naming its disks and
// names the disks of no other dropped domain. Two new VMs on db's disk
// would be two guesses: neither renames db, both stay refused while db
// has the disk, and db's removal is planned as before.
func TestRenameOnlyWhenOnePairing(t *testing.T) {
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{testDomain("db", "lab", volumeDisk("default", "db-data", "vda"))},
		Pools:   []string{trustPool("db-data")},
	}), Options{})
	var vms []*model.VM
	for _, name := range []string{"db1", "db2"} {
		vm := r.vm(name)
		vm.Disks = []model.Disk{{Pool: "default", Name: "db-data", SizeBytes: 1 << 20}}
		vms = append(vms, vm)
	}
	obs, _ := r.diff(r.tenantsGraph(map[string][]*model.VM{"lab": vms}))
	for _, c := range obs.Plan.Changes {
		if _, ok := c.After["name"]; ok {
			t.Errorf("%s renames db though two VMs name its disk: %q", c.Step, c.Reason)
		}
	}
	if len(obs.Plan.Blocked) != 2 {
		t.Errorf("got blocked %+v, want db1 and db2 refused while db has their disk; plan %q", obs.Plan.Blocked, lines(obs.Plan))
	}
	var removal bool
	for _, c := range obs.Plan.Changes {
		removal = removal || c.Step == "vm/"+r.host+"/db" && c.Action == "delete"
	}
	if !removal {
		t.Errorf("db's removal is not planned; plan %q", lines(obs.Plan))
	}
}

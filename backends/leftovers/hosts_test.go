//go:build cgo && libvirt_dlopen

package leftovers_test

import (
	"bufio"
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

const ns = `xmlns:site="` + libvirt.OwnerNS + `"`

func testDomain(name, uuid, tenant string) string {
	return `<domain type="test"><name>` + name + `</name><uuid>` + uuid + `</uuid><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type>hvm</type></os>` +
		`<metadata><site:owner ` + ns + ` tenant="` + tenant + `"/></metadata></domain>`
}

func testNetwork(name, uuid, tenant string) string {
	return `<network><name>` + name + `</name><uuid>` + uuid + `</uuid><metadata><site:owner ` + ns + ` tenant="` + tenant + `"/></metadata></network>`
}

// TestLeftoverCommandsNameOnlyTheLeftover: virsh looks a domain up by
// its id first, then by UUID, then by name (a network by UUID, then by
// name), so a leftover named "1", or named as another domain's UUID,
// would have its pasted commands stop and undefine a live tenant's
// domain. A tenant chooses its VM names: each command the report prints,
// split as sh splits it and looked up as virsh looks it up, must reach
// the leftover and nothing else.
func TestLeftoverCommandsNameOnlyTheLeftover(t *testing.T) {
	if err := libvirt.Available(); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("virsh"); err != nil {
		libvirttest.Need(t, "virsh is not installed (Debian: libvirt-clients)")
	}
	const liveUUID, liveNetUUID = "11111111-1111-1111-1111-111111111111", "44444444-4444-4444-4444-444444444444"
	uri := libvirttest.TestURI(t, libvirttest.Fixture{
		Domains: []string{
			testDomain("live", liveUUID, "keep"), // id 1 on the test driver
			testDomain("1", "22222222-2222-2222-2222-222222222222", "gone"),
			testDomain(liveUUID, "33333333-3333-3333-3333-333333333333", "gone"),
		},
		Networks: []string{
			testNetwork("live-lan", liveNetUUID, "keep"),
			testNetwork(liveNetUUID, "55555555-5555-5555-5555-555555555555", "gone"),
		},
	})
	d := libvirt.New(libvirt.Options{})
	t.Cleanup(func() { _ = d.Close() })
	keep := &model.Tenant{Name: "keep", VMs: []*model.VM{{Name: "live", Host: uri}}, Networks: []*model.Network{{Name: "live-lan", Host: uri}}}
	f := &leftovers.Finder{Hosts: d, Run: runstate.Start(backends.NewRun())}
	r := f.Find(context.Background(), leftovers.Input{Tenants: []*model.Tenant{keep}, Hosts: map[string]string{"kvm": uri}})
	if len(r.Hosts) != 1 || r.Hosts[0].Error != "" || len(r.Hosts[0].Leftovers) != 3 {
		t.Fatalf("want 3 leftovers on one host, got %+v", r.Hosts)
	}
	for _, l := range r.Hosts[0].Leftovers {
		for _, c := range l.Remove {
			args := shellWords(t, c)
			if len(args) < 4 || args[0] != "virsh" || args[1] != "-c" {
				t.Fatalf("%q: not a virsh command", c)
			}
			target := args[len(args)-1]
			if got := virshResolves(t, args[2], l.Kind, target); got != l.Name {
				t.Errorf("%s %q: %q reaches %s %q, not the leftover", l.Kind, l.Name, c, l.Kind, got)
			}
		}
	}
}

// shellWords is the words sh makes of the command line c, read by a
// virsh that only prints them.
func shellWords(t *testing.T, c string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `virsh() { printf 'virsh\0'; for a; do printf '%s\0' "$a"; done; }; `+c).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", c, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// virshResolves is the name of the domain (network) virsh finds on uri
// for target, as undefine, destroy (net-destroy, net-undefine) find it.
func virshResolves(t *testing.T, uri, kind, target string) string {
	t.Helper()
	info := "dominfo"
	if kind == backends.OwnedNetwork {
		info = "net-info"
	}
	out, err := exec.Command("virsh", "-c", uri, info, target).CombinedOutput()
	if err != nil {
		t.Fatalf("virsh %s %q: %v\n%s", info, target, err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "Name" {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("virsh %s %q names nothing:\n%s", info, target, out)
	return ""
}

// TestOneHostUnderTwoURIsHoldsNoLeftover: site.cue may declare one
// daemon twice (qemu:///system and qemu+unix:///system), and a tenant
// declares its VMs and networks through one of the two. Listed through
// the other they are still that tenant's, not left over: a domain or
// network is known by its UUID on every URI that lists it. The test
// driver serves one fixture file under two spellings of its path.
func TestOneHostUnderTwoURIsHoldsNoLeftover(t *testing.T) {
	if err := libvirt.Available(); err != nil {
		t.Fatal(err)
	}
	uri := libvirttest.TestURI(t, libvirttest.Fixture{
		Domains:  []string{testDomain("web", "11111111-1111-1111-1111-111111111111", "keep")},
		Networks: []string{testNetwork("lan", "44444444-4444-4444-4444-444444444444", "keep")},
	})
	alias := strings.Replace(uri, "/node.xml", "//node.xml", 1)
	d := libvirt.New(libvirt.Options{})
	t.Cleanup(func() { _ = d.Close() })
	keep := &model.Tenant{Name: "keep", VMs: []*model.VM{{Name: "web", Host: uri}}, Networks: []*model.Network{{Name: "lan", Host: uri}}}
	f := &leftovers.Finder{Hosts: d, Run: runstate.Start(backends.NewRun())}
	r := f.Find(context.Background(), leftovers.Input{Tenants: []*model.Tenant{keep}, Hosts: map[string]string{"kvm1": uri, "kvm1-again": alias}})
	if len(r.Hosts) != 2 {
		t.Fatalf("want 2 hosts, got %+v", r.Hosts)
	}
	for _, h := range r.Hosts {
		if h.Error != "" || h.Listed != 2 {
			t.Errorf("host %s: error %q, listed %d, want 2 listed", h.Name, h.Error, h.Listed)
		}
		for _, l := range h.Leftovers {
			t.Errorf("host %s (%s): %s %s of tenant %s reported left over, but keep declares it through the other URI: %q",
				h.Name, h.URI, l.Kind, l.Name, l.Tenant, l.Remove)
		}
	}
}

// TestAGrantedTenantsDomainIsNotJudged: a domain of a tenant site.cue
// grants, whose file was not loaded (a PATH that did not reach it), is
// said not judged, with no command that would remove it, and the report
// counts as unread: the tenant may declare it still.
func TestAGrantedTenantsDomainIsNotJudged(t *testing.T) {
	if err := libvirt.Available(); err != nil {
		t.Fatal(err)
	}
	uri := libvirttest.TestURI(t, libvirttest.Fixture{Domains: []string{
		testDomain("team-web", "11111111-1111-1111-1111-111111111111", "team"),
		testDomain("gone-web", "22222222-2222-2222-2222-222222222222", "gone"),
	}})
	d := libvirt.New(libvirt.Options{})
	t.Cleanup(func() { _ = d.Close() })
	f := &leftovers.Finder{Hosts: d, Run: runstate.Start(backends.NewRun())}
	r := f.Find(context.Background(), leftovers.Input{Hosts: map[string]string{"kvm": uri}, Granted: func(tenant string) bool { return tenant == "team" }})
	if len(r.Hosts) != 1 || len(r.Hosts[0].Leftovers) != 2 {
		t.Fatalf("want 2 domains on one host, got %+v", r.Hosts)
	}
	gone, team := r.Hosts[0].Leftovers[0], r.Hosts[0].Leftovers[1]
	if team.NotJudged == "" || len(team.Remove) != 0 {
		t.Errorf("granted tenant team's domain: not judged %q, remove %q; want a reason and no command", team.NotJudged, team.Remove)
	}
	if gone.NotJudged != "" || len(gone.Remove) == 0 {
		t.Errorf("removed tenant gone's domain: not judged %q, remove %q; want commands", gone.NotJudged, gone.Remove)
	}
	if !r.Unread() || !r.Found() {
		t.Errorf("Unread %t, Found %t; want both", r.Unread(), r.Found())
	}
}

// TestLeftoversInUseAreNotRemoved: a leftover network a live domain
// still has an interface on (its tenant dropped the network, and the
// running guest keeps it until its next boot), or a leftover domain's
// volume another domain uses, is still reported, but without the
// command that would take it from under that domain: a network or
// volume something uses is never destroyed (INCIDENTS.md, 3).
func TestLeftoversInUseAreNotRemoved(t *testing.T) {
	if err := libvirt.Available(); err != nil {
		t.Fatal(err)
	}
	web := `<domain type="test"><name>web</name><uuid>11111111-1111-1111-1111-111111111111</uuid><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type>hvm</type></os>` +
		`<devices><disk type="volume" device="disk"><source pool="default" volume="shared"/><target dev="vda"/></disk>` +
		`<interface type="network"><source network="old-lan"/></interface></devices>` +
		`<metadata><site:owner ` + ns + ` tenant="keep"/></metadata></domain>`
	old := `<domain type="test"><name>old</name><uuid>22222222-2222-2222-2222-222222222222</uuid><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type>hvm</type></os>` +
		`<metadata><site:owner ` + ns + ` tenant="gone"><site:volume pool="default" name="old-root" role="disk"/><site:volume pool="default" name="shared" role="disk"/></site:owner></metadata></domain>`
	uri := libvirttest.TestURI(t, libvirttest.Fixture{
		Domains:  []string{web, old},
		Networks: []string{testNetwork("old-lan", "44444444-4444-4444-4444-444444444444", "keep")},
	})
	d := libvirt.New(libvirt.Options{})
	t.Cleanup(func() { _ = d.Close() })
	keep := &model.Tenant{Name: "keep", VMs: []*model.VM{{Name: "web", Host: uri}}} // declares no network any more
	f := &leftovers.Finder{Hosts: d, Run: runstate.Start(backends.NewRun())}
	r := f.Find(context.Background(), leftovers.Input{Tenants: []*model.Tenant{keep}, Hosts: map[string]string{"kvm": uri}})
	if len(r.Hosts) != 1 || r.Hosts[0].Error != "" || len(r.Hosts[0].Leftovers) != 2 {
		t.Fatalf("want domain old and network old-lan left over, got %+v", r.Hosts)
	}
	for _, l := range r.Hosts[0].Leftovers {
		for _, c := range l.Remove {
			if strings.Contains(c, "44444444-4444-4444-4444-444444444444") || strings.HasSuffix(c, " shared") {
				t.Errorf("%s %s: %q takes from domain web what it uses", l.Kind, l.Name, c)
			}
		}
		if l.Name == "old" && !slices.ContainsFunc(l.Remove, func(c string) bool { return strings.HasSuffix(c, " old-root") }) {
			t.Errorf("domain old: no vol-delete of old-root, which nothing else uses: %q", l.Remove)
		}
	}
}

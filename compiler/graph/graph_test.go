package graph

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"

	"github.com/site-tools/site/compiler/golden"
)

// coldStart is the shape of INCIDENTS.md 1: a Cloudflare zone whose token
// is in the operator's store bao, a VM that publishes into the zone, and
// a network the VM uses; plus a second tenant on PowerDNS with an env key.
func coldStart() *model.Spec {
	store := &model.Vault{Name: "bao", Addrs: []string{"https://keys.sjc.example.net", "http://127.0.0.1:1"}, Mount: "secret"}
	token := model.Credential{Vault: &model.VaultRef{Vault: "bao", Path: "dns/cloudflare", Key: "token"}}
	return &model.Spec{Vaults: map[string]*model.Vault{"bao": store}, Tenants: []*model.Tenant{
		{
			Name: "office1", Domain: "office1.example.test.",
			Zones: []*model.Zone{{Tenant: "office1", Name: "office1.example.test.",
				Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}}},
		},
		{
			Name: "sjc", Domain: "sjc.example.net.",
			Networks: []*model.Network{{Tenant: "sjc", Name: "sjc-lan", Host: "qemu:///system"}},
			VMs: []*model.VM{{Tenant: "sjc", Name: "keys", Host: "qemu:///system",
				NICs:    []model.NIC{{Network: "sjc-lan"}},
				Publish: &model.Publish{Zone: "sjc.example.net.", Names: []string{"keys.sjc.example.net."}, Address: "203.0.113.10"}}},
			Zones: []*model.Zone{
				{Tenant: "sjc", Name: "sjc.example.net.", Provider: model.Provider{Cloudflare: &model.Cloudflare{Token: token}}},
				// A second zone with the same token shares one secret step.
				{Tenant: "sjc", Name: "sjc.example.org.", Provider: model.Provider{Cloudflare: &model.Cloudflare{Token: token}}},
			},
		},
	}}
}

func ids(g *Graph) []string {
	var out []string
	for _, s := range g.Steps {
		out = append(out, s.ID)
	}
	return out
}

func TestBuildOrdersByDependencyThenPhase(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"secret/bao/dns/cloudflare#token",
		"network/qemu:///system/sjc-lan",
		"vm/qemu:///system/keys",
		"dns/office1.example.test.",
		"dns/sjc.example.net.",
		"dns/sjc.example.org.",
	}
	if got := ids(g); !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
	deps := map[string][]string{
		"vm/qemu:///system/keys": {"network/qemu:///system/sjc-lan"},
		"dns/sjc.example.net.":   {"secret/bao/dns/cloudflare#token", "vm/qemu:///system/keys"},
		"dns/sjc.example.org.":   {"secret/bao/dns/cloudflare#token"},
	}
	for id, want := range deps {
		if got := g.Step(id).Deps; !reflect.DeepEqual(got, want) {
			t.Errorf("%s deps: got %q, want %q", id, got, want)
		}
	}
}

// TestBuildSignedChildFirst: a parent zone's step depends on the steps of
// the signed children whose DS it publishes, so the key exists when the
// parent reads it.
func TestBuildSignedChildFirst(t *testing.T) {
	pdns := model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}
	child := &model.Zone{Tenant: "a", Name: "b.a.example.test.", Provider: pdns, DNSSEC: true}
	parent := &model.Zone{Tenant: "a", Name: "a.example.test.", Provider: pdns, SignedChildren: []*model.Zone{child}}
	g, err := Build(&model.Spec{Tenants: []*model.Tenant{{Name: "a", Zones: []*model.Zone{parent, child}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(g), []string{"dns/b.a.example.test.", "dns/a.example.test."}; !reflect.DeepEqual(got, want) {
		t.Errorf("order: got %q, want %q", got, want)
	}
	if got, want := g.Step("dns/a.example.test.").Deps, []string{"dns/b.a.example.test."}; !reflect.DeepEqual(got, want) {
		t.Errorf("parent deps: got %q, want %q", got, want)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		spec func() *model.Spec
		want string
	}{
		{"vault credential without a store", func() *model.Spec {
			s := coldStart()
			s.Vaults = nil
			return s
		}, `refers to vault "bao", which site.cue does not declare`},
		{"one VM twice", func() *model.Spec {
			s := coldStart()
			s.Tenants[1].VMs = append(s.Tenants[1].VMs, s.Tenants[1].VMs[0])
			return s
		}, "two steps converge vm/qemu:///system/keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.spec())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestOrderRefusesCycles(t *testing.T) {
	a := &Step{ID: "a", Phase: plan.PhaseVM, Deps: []string{"b"}}
	b := &Step{ID: "b", Phase: plan.PhaseVM, Deps: []string{"a"}}
	if _, err := order([]*Step{a, b}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("got %v, want a cycle error", err)
	}
}

func TestOnly(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		only string
		want []string
	}{
		{"", ids(g)},
		// --only dns keeps the secret the DNS steps need, not the VM that
		// publishes into the zone.
		{"dns", []string{"secret/bao/dns/cloudflare#token", "dns/office1.example.test.", "dns/sjc.example.net.", "dns/sjc.example.org."}},
		// --only vm keeps the network the VM attaches to.
		{"vm", []string{"network/qemu:///system/sjc-lan", "vm/qemu:///system/keys"}},
		{"network,vm", []string{"network/qemu:///system/sjc-lan", "vm/qemu:///system/keys"}},
		{"secrets", []string{"secret/bao/dns/cloudflare#token"}},
	}
	for _, tt := range tests {
		t.Run(tt.only, func(t *testing.T) {
			phases, err := ParsePhases(tt.only)
			if err != nil {
				t.Fatal(err)
			}
			sub := g.Only(phases)
			if got := ids(sub); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			checkClosed(t, sub)
		})
	}
}

// checkClosed fails t when a step of sub depends on a step outside it.
func checkClosed(t *testing.T, sub *Graph) {
	t.Helper()
	for _, s := range sub.Steps {
		for _, d := range s.Deps {
			if sub.Step(d) == nil {
				t.Errorf("%s keeps dependency %s outside the subgraph", s.ID, d)
			}
		}
	}
}

func TestParsePhasesRejectsUnknown(t *testing.T) {
	for _, tc := range []struct{ only, want string }{
		{"dns,vms", `unknown phase "vms": did you mean vm? (use one or more of secrets, network, storage, vm, dns, separated by commas)`},
		{"netwrok", `unknown phase "netwrok": did you mean network? (use one or more of`},
		{"files", `unknown phase "files": use one or more of secrets, network, storage, vm, dns, separated by commas`},
	} {
		_, err := ParsePhases(tc.only)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePhases(%q): got %v, want an error containing %q", tc.only, err, tc.want)
		}
	}
}

func TestDOT(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "coldstart.dot.golden"), []byte(g.DOT()))
}

func BenchmarkBuild(b *testing.B) {
	// coldStart's tenant takes its Cloudflare token from the vault bao:
	// the spec declares it, as site.cue does, or Build refuses it.
	spec := &model.Spec{Vaults: coldStart().Vaults}
	for i := 0; i < 1000; i++ {
		t := coldStart().Tenants[1]
		name := fmt.Sprintf("t%d", i)
		t.Name = name
		t.VMs[0].Name = name
		t.Networks[0].Name = name + "-lan"
		t.VMs[0].NICs = []model.NIC{{Network: name + "-lan"}}
		t.Zones = t.Zones[:1]
		t.Zones[0] = &model.Zone{Tenant: name, Name: name + ".example.net.", Provider: t.Zones[0].Provider}
		t.VMs[0].Publish = &model.Publish{Zone: name + ".example.net."}
		spec.Tenants = append(spec.Tenants, t)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Build(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPublishPTRZoneWaitsForTheVM: the reverse zone a VM writes its PTR
// into depends on the VM step, as the zone of its addresses does.
func TestPublishPTRZoneWaitsForTheVM(t *testing.T) {
	spec := coldStart()
	sjc := spec.Tenants[1]
	sjc.VMs[0].Publish.PTR, sjc.VMs[0].Publish.PTRZone = "10.113.0.203.in-addr.arpa.", "113.0.203.in-addr.arpa."
	sjc.Zones = append(sjc.Zones, &model.Zone{Tenant: "sjc", Name: "113.0.203.in-addr.arpa.",
		Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}})
	g, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.Step("dns/113.0.203.in-addr.arpa.").Deps, []string{"vm/qemu:///system/keys"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reverse zone deps: got %q, want %q", got, want)
	}
}

// twoProviders is coldStart with zone sjc.example.net. on PowerDNS
// provider pdns and Cloudflare provider cf at once.
func twoProviders() *model.Spec {
	spec := coldStart()
	z := spec.Tenants[1].Zones[0]
	pdns := model.Provider{Name: "pdns", PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081", APIKey: model.Credential{Env: "PDNS_API_KEY"}}}
	cf := z.Provider
	cf.Name = "cf"
	z.Provider, z.Providers = pdns, []model.Provider{pdns, cf}
	return spec
}

// TestZoneOnTwoProviders_AStepPerProvider: a zone on several providers
// is a step per provider, dns/ZONE@PROVIDER, each with its provider as
// the zone's, its own secret read and the VMs that publish into the
// zone; a zone on one provider keeps dns/ZONE.
func TestZoneOnTwoProviders_AStepPerProvider(t *testing.T) {
	spec := twoProviders()
	sjc := spec.Tenants[1]
	g, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if g.Step("dns/sjc.example.net.") != nil {
		t.Errorf("a zone on two providers kept the one-provider step ID")
	}
	for _, tc := range []struct {
		id, provider string
		deps         []string
	}{
		{"dns/sjc.example.net.@pdns", "pdns", []string{"vm/qemu:///system/keys"}},
		{"dns/sjc.example.net.@cf", "cf", []string{"secret/bao/dns/cloudflare#token", "vm/qemu:///system/keys"}},
		{"dns/sjc.example.org.", "", []string{"secret/bao/dns/cloudflare#token"}},
	} {
		s := g.Step(tc.id)
		if s == nil {
			t.Errorf("no step %s in %q", tc.id, ids(g))
			continue
		}
		if s.Zone.Provider.Name != tc.provider || !reflect.DeepEqual(s.Deps, tc.deps) {
			t.Errorf("%s: provider %q, deps %q; want %q, %q", tc.id, s.Zone.Provider.Name, s.Deps, tc.provider, tc.deps)
		}
	}
	if sjc.Zones[0].Provider.Name != "pdns" {
		t.Errorf("the tenant's zone now says provider %q: the steps must write copies", sjc.Zones[0].Provider.Name)
	}
}

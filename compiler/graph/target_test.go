package graph

import (
	"reflect"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/plan"
)

func TestTargets(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{"none keeps everything", nil, ids(g)},
		// A targeted zone keeps the secret its token is read from, not the
		// VM that publishes into it.
		{"exact zone", []string{"dns/sjc.example.net."},
			[]string{"secret/bao/dns/cloudflare#token", "dns/sjc.example.net."}},
		{"exact zone without a secret", []string{"dns/office1.example.test."},
			[]string{"dns/office1.example.test."}},
		// A targeted VM keeps the network it attaches to: libvirt cannot
		// start it without.
		{"exact VM ID with a host URI", []string{"vm/qemu:///system/keys"},
			[]string{"network/qemu:///system/sjc-lan", "vm/qemu:///system/keys"}},
		// * crosses the slashes of the host URI.
		{"glob over hosts", []string{"vm/*/keys"}, []string{"network/qemu:///system/sjc-lan", "vm/qemu:///system/keys"}},
		{"every zone", []string{"dns/*"},
			[]string{"secret/bao/dns/cloudflare#token", "dns/office1.example.test.", "dns/sjc.example.net.", "dns/sjc.example.org."}},
		{"suffix glob", []string{"dns/*.example.org."},
			[]string{"secret/bao/dns/cloudflare#token", "dns/sjc.example.org."}},
		{"question mark and class", []string{"dns/sjc.example.ne?.", "network/*/sjc-[a-z]an"},
			[]string{"secret/bao/dns/cloudflare#token", "network/qemu:///system/sjc-lan", "dns/sjc.example.net."}},
		{"negated class", []string{"dns/[^s]*"}, []string{"dns/office1.example.test."}},
		{"escaped star matches only a star", []string{`dns/office1.example.test.`, `vm/\*`}, nil},
		{"patterns that overlap keep each step once", []string{"dns/sjc.*", "dns/*.net."},
			[]string{"secret/bao/dns/cloudflare#token", "dns/sjc.example.net.", "dns/sjc.example.org."}},
		{"a secret step alone", []string{"secret/*"}, []string{"secret/bao/dns/cloudflare#token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := g.Targets(tt.patterns)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("got %q, want an error", ids(sub))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(sub); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			checkClosed(t, sub)
		})
	}
}

func TestTargetsErrors(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		g       *Graph
		pattern string
		want    []string
	}{
		{"no match lists the steps in scope", g, "dns/nowhere.example.",
			[]string{`pattern "dns/nowhere.example." matches no step; the steps in scope are:`,
				"\n  dns/office1.example.test.\n", "\n  vm/qemu:///system/keys"}},
		{"missing trailing dot is pointed out", g, "dns/sjc.example.net",
			[]string{"DNS step IDs end in a dot: dns/sjc.example.net."}},
		// Scoping composes: what --only left out is not a target.
		{"outside --only", g.Only(mustPhases(t, "dns")), "vm/*",
			[]string{"matches no step", "  dns/sjc.example.org."}},
		{"nothing in scope", &Graph{byID: map[string]*Step{}}, "dns/*",
			[]string{"no step is in scope"}},
		// The keys site diff prints name parts of a step, which converges whole.
		{"a DNS change key names its zone step", g, "dns/sjc.example.net./www.sjc.example.net./CNAME",
			[]string{"dns/sjc.example.net./www.sjc.example.net./CNAME is a change in step dns/sjc.example.net.; --target takes whole steps: --target dns/sjc.example.net. converges all of it"}},
		{"a VM change key names its VM step", g, "vm/qemu:///system/keys/memory",
			[]string{"is a change in step vm/qemu:///system/keys;"}},
		// The TENANT/VM form --restart takes, a VM's bare name, a zone's
		// name: each is told the step ID it meant.
		{"TENANT/VM names the VM step", g, "sjc/keys",
			[]string{`pattern "sjc/keys" matches no step (--target takes step IDs, not TENANT/VM as --restart does: --target vm/qemu:///system/keys); the steps in scope are:`}},
		{"another tenant's name still finds the VM", g, "office1/keys",
			[]string{"(--target takes step IDs, not TENANT/VM as --restart does: --target vm/qemu:///system/keys)"}},
		{"a bare VM name", g, "keys",
			[]string{`pattern "keys" matches no step (--target takes step IDs: --target vm/qemu:///system/keys); the steps`}},
		{"a zone without dns/", g, "sjc.example.net.",
			[]string{`pattern "sjc.example.net." matches no step (--target takes step IDs: --target dns/sjc.example.net.); the steps`}},
		{"a zone without dns/ nor its dot", g, "SJC.example.net",
			[]string{"(--target takes step IDs: --target dns/sjc.example.net.)"}},
		{"a VM name that no step has", g, "sjc/db", []string{`pattern "sjc/db" matches no step; the steps in scope are:`}},
		{"empty", g, "", []string{"empty pattern"}},
		{"open class", g, "dns/[abc", []string{"a [ has no closing ]"}},
		{"empty class", g, "dns/[]", []string{"[] names no character"}},
		{"bad range", g, "dns/[z-a]*", []string{"not a valid glob"}},
		{"lone backslash", g, `dns/\`, []string{`ends in a lone \`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.g.Targets([]string{tt.pattern})
			if err == nil {
				t.Fatalf("got no error, want one containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestZoneOnTwoProviders_TargetNamesEachProvidersStep: a zone on several
// providers is targeted by its steps' IDs, one or all; its name alone
// is told them.
func TestZoneOnTwoProviders_TargetNamesEachProvidersStep(t *testing.T) {
	g, err := Build(twoProviders())
	if err != nil {
		t.Fatal(err)
	}
	for pattern, want := range map[string][]string{
		"dns/sjc.example.net.@cf": {"dns/sjc.example.net.@cf"},
		"dns/sjc.example.net.@*":  {"dns/sjc.example.net.@cf", "dns/sjc.example.net.@pdns"},
	} {
		s, err := g.Targets([]string{pattern})
		if err != nil {
			t.Fatalf("--target %s: %v", pattern, err)
		}
		var got []string
		for _, st := range s.Steps {
			if st.Zone != nil {
				got = append(got, st.ID)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("--target %s keeps zone steps %q, want %q", pattern, got, want)
		}
	}
	_, err = g.Targets([]string{"sjc.example.net"})
	if want := "zone sjc.example.net. is a step per provider: --target dns/sjc.example.net.@cf, --target dns/sjc.example.net.@pdns, or --target 'dns/sjc.example.net.@*'"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("--target sjc.example.net: %v; want it to say %q", err, want)
	}
}

// TestTargetsSuggestsEveryVMOfThatName: VMs of one name on several
// hosts are all offered, the asking tenant's before the others'.
func TestTargetsSuggestsEveryVMOfThatName(t *testing.T) {
	steps := []*Step{
		{ID: "vm/qemu+ssh://kvm2/system/db", Phase: plan.PhaseVM, Tenant: "lab"},
		{ID: "vm/qemu:///system/db", Phase: plan.PhaseVM, Tenant: "lab"},
		{ID: "vm/qemu:///system/web", Phase: plan.PhaseVM, Tenant: "lab"},
		{ID: "vm/test:///default/db", Phase: plan.PhaseVM, Tenant: "shop"},
	}
	g, err := order(steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ pattern, want string }{
		{"lab/db", "(--target takes step IDs, not TENANT/VM as --restart does: --target vm/qemu+ssh://kvm2/system/db --target vm/qemu:///system/db)"},
		{"shop/db", "(--target takes step IDs, not TENANT/VM as --restart does: --target vm/test:///default/db)"},
		{"db", "(--target takes step IDs: --target vm/*/db takes every VM named db)"},
		{"other/db", "(--target takes step IDs, not TENANT/VM as --restart does: --target vm/*/db takes every VM named db)"},
	} {
		_, err := g.Targets([]string{tc.pattern})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--target %s: got %v, want it to contain %q", tc.pattern, err, tc.want)
		}
	}
}

// TestTargetsListIsCapped keeps the error readable for a big site.
func TestTargetsListIsCapped(t *testing.T) {
	var steps []*Step
	for i := 0; i < maxListed+7; i++ {
		steps = append(steps, &Step{ID: "dns/z" + strings.Repeat("x", i) + ".", Phase: plan.PhaseDNS})
	}
	g, err := order(steps)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Targets([]string{"vm/*"})
	if err == nil || !strings.Contains(err.Error(), "... and 7 more (site graph lists them all)") {
		t.Errorf("got %v, want the list capped with 7 more", err)
	}
	if got := strings.Count(err.Error(), "\n  dns/"); got != maxListed {
		t.Errorf("got %d IDs listed, want %d", got, maxListed)
	}
}

func mustPhases(t *testing.T, s string) []plan.Phase {
	t.Helper()
	p, err := ParsePhases(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScopesMarkPrerequisites: a step kept only because a chosen step
// needs it is marked, so the plan can say it converges it too; a step
// chosen by --target after --only kept it as a prerequisite is chosen.
func TestScopesMarkPrerequisites(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	vmOnly := g.Only([]plan.Phase{plan.PhaseVM})
	tests := []struct {
		name  string
		scope func() (*Graph, error)
		want  []string
	}{
		{"unscoped", func() (*Graph, error) { return g, nil }, nil},
		{"only vm", func() (*Graph, error) { return vmOnly, nil }, []string{"network/qemu:///system/sjc-lan"}},
		{"target vm", func() (*Graph, error) { return g.Targets([]string{"vm/*/keys"}) }, []string{"network/qemu:///system/sjc-lan"}},
		{"only network,vm then target vm", func() (*Graph, error) {
			return g.Only([]plan.Phase{plan.PhaseNetwork, plan.PhaseVM}).Targets([]string{"vm/*"})
		}, []string{"network/qemu:///system/sjc-lan"}},
		{"only vm then target the network", func() (*Graph, error) { return vmOnly.Targets([]string{"network/*"}) }, nil},
		// Secret steps only read: they are kept but not listed.
		{"target zone", func() (*Graph, error) { return g.Targets([]string{"dns/sjc.example.net."}) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub, err := tt.scope()
			if err != nil {
				t.Fatal(err)
			}
			if got := sub.Prerequisites(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got prerequisites %q, want %q", got, tt.want)
			}
		})
	}
	if !strings.Contains(vmOnly.DOT(), `"network/qemu:///system/sjc-lan" [label="network/qemu:///system/sjc-lan\n(prerequisite)", style=dashed];`) {
		t.Errorf("DOT does not mark the prerequisite network:\n%s", vmOnly.DOT())
	}
}

// TestTargetMatch: what --target keeps, told for one step ID before
// any graph exists (site diff reads the zones it keeps ahead).
func TestTargetMatch(t *testing.T) {
	cases := []struct {
		patterns []string
		id       string
		want     bool
	}{
		{nil, "dns/a.example.", true},
		{[]string{"dns/a.example."}, "dns/a.example.", true},
		{[]string{"dns/a.example."}, "dns/b.example.", false},
		{[]string{"vm/*", "dns/*.example."}, "dns/b.example.", true},
		{[]string{"vm/*"}, "dns/b.example.", false},
	}
	for _, tc := range cases {
		match, err := TargetMatch(tc.patterns)
		if err != nil {
			t.Fatalf("%q: %v", tc.patterns, err)
		}
		if got := match(tc.id); got != tc.want {
			t.Errorf("%q matches %s: %v, want %v", tc.patterns, tc.id, got, tc.want)
		}
	}
	if _, err := TargetMatch([]string{"dns/[a"}); err == nil {
		t.Error("a pattern with an unclosed [ was taken")
	}
}

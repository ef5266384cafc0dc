package plan

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
)

func TestDisplayKey(t *testing.T) {
	for _, tc := range []struct {
		key, step, want string
	}{
		{"dns/acme.example.net./www.acme.example.net./A", "dns/acme.example.net.", "www A"},
		{"dns/acme.example.net./acme.example.net./MX", "dns/acme.example.net.", "@ MX"},
		{"dns/acme.example.net./*.apps.acme.example.net./A", "dns/acme.example.net.", "*.apps A"},
		{"dns/acme.example.net./child.acme.example.net./DS", "dns/acme.example.net.", "child DS"},
		// A name outside the zone stays absolute.
		{"dns/acme.example.net./elsewhere.example./A", "dns/acme.example.net.", "elsewhere.example. A"},
		// Not under its zone's step: shown whole.
		{"dns/acme.example.net./www.acme.example.net./A", "dns/other.example.", "dns/acme.example.net./www.acme.example.net./A"},
		// A zone's own creation, a VM's keys: as they are.
		{"dns/acme.example.net.", "dns/acme.example.net.", "dns/acme.example.net."},
		{"vm/qemu:///system/keys/memory", "vm/qemu:///system/keys", "vm/qemu:///system/keys/memory"},
		// A zone on several providers: a step per provider, keyed in the zone.
		{"dns/acme.example.net./www.acme.example.net./A", "dns/acme.example.net.@pdns2", "www A"},
		// A name a live zone holds is shown escaped.
		{"dns/acme.example.net./a\x1b[2Jb.acme.example.net./TXT", "dns/acme.example.net.", `a\x1b[2Jb TXT`},
	} {
		t.Run(tc.key, func(t *testing.T) {
			if got := displayKey(Change{Key: tc.key, Step: tc.step}); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKeyOnStep: a line without its step's heading names the step when
// the key does not: a zone on several providers plans one key on each.
func TestKeyOnStep(t *testing.T) {
	const key = "dns/acme.example.net./www.acme.example.net./A"
	for _, tc := range []struct{ key, step, want string }{
		{key, "dns/acme.example.net.", key},
		{key, "dns/acme.example.net.@pdns2", key + " on dns/acme.example.net.@pdns2"},
		{"dns/acme.example.net.", "dns/acme.example.net.", "dns/acme.example.net."},
		{"dns/acme.example.net.", "dns/acme.example.net.@pdns2", "dns/acme.example.net. on dns/acme.example.net.@pdns2"},
		{"vm/qemu:///system/keys/memory", "vm/qemu:///system/keys", "vm/qemu:///system/keys/memory"},
	} {
		if got := (Change{Key: tc.key, Step: tc.step}).KeyOnStep(); got != tc.want {
			t.Errorf("KeyOnStep(%q on %q): got %q, want %q", tc.key, tc.step, got, tc.want)
		}
	}
}

// deleteManyReason is the reason the DNS planner gives each delete of
// a zone that loses every name at once.
const deleteManyReason = "no longer in the spec; 5 of the 5 RRsets site owns in this zone go at once: no name site owns in this zone is left"

// deleteManyPlan empties a zone of five records, which needs
// GATE-DNS-DELETE-MANY, and overwrites a foreign record in another.
func deleteManyPlan() *Plan {
	p := New()
	const step, zone = "dns/acme.example.net.", "acme.example.net."
	for _, r := range []struct{ name, typ, value string }{
		{"a", "A", "192.0.2.1"}, {"b", "A", "192.0.2.2"}, {"c", "A", "192.0.2.3"},
		{"", "TXT", `"v=spf1 -all"`}, {"mail", "MX", "10 mx.example.org."},
	} {
		name := zone
		if r.name != "" {
			name = r.name + "." + zone
		}
		p.Changes = append(p.Changes, Change{Key: step + "/" + name + "/" + r.typ, Step: step, Phase: PhaseDNS, Tenant: "acme",
			Action: ActionDelete, Impact: ImpactLive, Gates: []Gate{GateDNSDeleteMany}, Reason: deleteManyReason,
			Before: map[string]any{"ttl": 300, "values": []string{r.value}}})
	}
	p.Changes = append(p.Changes, Change{Key: "dns/shop.test./www.shop.test./A", Step: "dns/shop.test.", Phase: PhaseDNS, Tenant: "shop",
		Action: ActionUpdate, Impact: ImpactOverwrite, Gates: []Gate{GateDNSOverwrite},
		Reason: "foreign A record with other content (no owner marker)",
		Before: map[string]any{"ttl": 300, "values": []string{"198.51.100.7"}},
		After:  map[string]any{"ttl": 300, "values": []string{"192.0.2.80"}}})
	p.Sort()
	return p
}

// TestSharedGateReasonOnce: a zone's five gated deletes say their
// reason once, naming the records it covers, in text and Markdown; a
// reason no other change shares stays under its change.
func TestSharedGateReasonOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(*Plan, *bytes.Buffer) error
	}{
		{"plan_delete_many.golden", func(p *Plan, b *bytes.Buffer) error { return p.WriteText(b, TextOptions{}) }},
		{"plan_delete_many.md.golden", func(p *Plan, b *bytes.Buffer) error { return p.WriteMarkdown(b, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(deleteManyPlan(), &b); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if n := strings.Count(out, deleteManyReason); n != 1 {
				t.Errorf("the delete gate's reason is said %d times, want once:\n%s", n, out)
			}
			if want := "GATE-DNS-DELETE-MANY for 5 changes (@ TXT, a A, b A, c A, mail MX):"; !strings.Contains(out, want) {
				t.Errorf("no line %q:\n%s", want, out)
			}
			if strings.Contains(out, "dns/acme.example.net./") {
				t.Errorf("a record's key repeats its zone:\n%s", out)
			}
			if !strings.Contains(out, "www A  [overwrite]  needs GATE-DNS-OVERWRITE\n") ||
				!strings.Contains(out, "    foreign A record with other content (no owner marker)\n") {
				t.Errorf("the overwrite lost its own reason:\n%s", out)
			}
			golden.Check(t, filepath.Join("testdata", tc.name), b.Bytes())
		})
	}
}

// TestSharedReasonCountsPastTen: a shared reason names ten changes and
// counts the rest, which are listed below it each with its gate.
func TestSharedReasonCountsPastTen(t *testing.T) {
	var group []Change
	for _, n := range "abcdefghijkl" {
		group = append(group, Change{Key: "dns/z./" + string(n) + ".z./A", Step: "dns/z.", Action: ActionDelete,
			Gates: []Gate{GateDNSDeleteMany}, Reason: "many"})
	}
	var b strings.Builder
	writeStep(&b, group, noPaint)
	want := "  ! GATE-DNS-DELETE-MANY for 12 changes (a A, b A, c A, d A, e A, f A, g A, h A, i A, j A and 2 more):\n      many\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("got\n%s\nwant it to start with\n%s", b.String(), want)
	}
	if n := strings.Count(b.String(), "needs GATE-DNS-DELETE-MANY"); n != 12 {
		t.Errorf("%d changes marked with the gate, want 12", n)
	}
}

// TestWriteTextQuiet: --quiet keeps the changes and the problems, and
// drops the notes, the prerequisites and the line of a converged plan.
func TestWriteTextQuiet(t *testing.T) {
	withPrereq := notesPlan()
	withPrereq.Prerequisites = []string{"network/qemu:///system/lan"}
	for _, tc := range []struct {
		name       string
		plan       *Plan
		want, not  []string
		wantsEmpty bool
	}{
		{name: "changes and problems", plan: withPrereq,
			want: []string{"+ keys A  [live]", "Not planned", "Plan: 2 to create"},
			not:  []string{"note:", "DS for the parent", "Also in scope", "network/qemu:///system/lan"}},
		{name: "converged", plan: New(), wantsEmpty: true},
		{name: "notes only", plan: notesConverged(), wantsEmpty: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.plan.WriteText(&b, TextOptions{Quiet: true}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if tc.wantsEmpty != (out == "") {
				t.Errorf("output %q, want it empty: %v", out, tc.wantsEmpty)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("%q in the quiet plan\n%s", w, out)
				}
			}
		})
	}
}

// TestWriteStepOrder: a zone's creation first, then its apex, then the
// other names in plan order.
func TestWriteStepOrder(t *testing.T) {
	group := []Change{
		{Key: "dns/z.", Step: "dns/z.", Action: ActionCreate},
		{Key: "dns/z./a.z./A", Step: "dns/z.", Action: ActionCreate},
		{Key: "dns/z./z./TXT", Step: "dns/z.", Action: ActionCreate},
		{Key: "dns/z./zz.z./A", Step: "dns/z.", Action: ActionCreate},
	}
	var b strings.Builder
	writeStep(&b, group, noPaint)
	want := "  + dns/z.  []\n  + @ TXT  []\n  + a A  []\n  + zz A  []\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

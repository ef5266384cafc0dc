package plan

import (
	"slices"
	"testing"
)

func TestUnobserved(t *testing.T) {
	p := New()
	p.Blocked = []Blocked{
		{Step: "dns/a.example.", Reason: "HTTP 500"},
		{Step: "secret/t/p#k", Reason: "no vault answered", Gate: GateSecretUnreachable},
		{Step: "dns/b.example.", Reason: "depends on secret/t/p#k", Gate: GateSecretUnreachable, Skipped: true},
	}
	steps := func(bs []Blocked) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Step)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		acked map[Gate]bool
		want  []string
	}{
		{"nothing acknowledged", nil, []string{"dns/a.example.", "secret/t/p#k", "dns/b.example."}},
		{"gate defers its steps, not the ungated one", map[Gate]bool{GateSecretUnreachable: true}, []string{"dns/a.example."}},
		{"another gate defers nothing", map[Gate]bool{GateDNSOverwrite: true}, []string{"dns/a.example.", "secret/t/p#k", "dns/b.example."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := steps(p.Unobserved(tc.acked)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

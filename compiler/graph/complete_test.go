package graph

import (
	"slices"
	"testing"
)

// TestComplete: what the shell offers for --target, --restart and
// --only, from a graph and the phases.
func TestComplete(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  []string
		want []string
	}{
		{"steps dns/", g.CompleteSteps("dns/sjc"), []string{"dns/sjc.example.net.", "dns/sjc.example.org."}},
		{"steps none", g.CompleteSteps("nope"), nil},
		{"vms", g.CompleteVMs(""), []string{"sjc/keys"}},
		{"vms other tenant", g.CompleteVMs("office1/"), nil},
		{"phases first", CompletePhases("v"), []string{"vm"}},
		{"phases after one", CompletePhases("dns,"), []string{"dns,secrets", "dns,network", "dns,storage", "dns,vm"}},
		{"phases after two", CompletePhases("dns,vm,s"), []string{"dns,vm,secrets", "dns,vm,storage"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

package graph

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/plan"
)

// TestScope: --only before --target (a target --only left out is an
// error naming what is in scope), and a target that matches nothing
// says why the undeclared were not among the candidates.
func TestScope(t *testing.T) {
	g, err := Scope(coldStart(), []plan.Phase{plan.PhaseVM}, []string{"vm/*/keys"}, nil)
	if err != nil || !slices.Contains(ids(g), "vm/qemu:///system/keys") || slices.ContainsFunc(ids(g), func(id string) bool { return strings.HasPrefix(id, "dns/") }) {
		t.Fatalf("vm keys: %v, %v", ids(g), err)
	}
	unlisted := errors.New("host down")
	for _, tc := range []struct {
		name     string
		targets  []string
		discover func(*Graph) ([]*Step, error)
		want     string
	}{
		{"left out by --only", []string{"dns/*"}, nil, "--target: "},
		{"undeclared not looked for", []string{"vm/*/gone"}, nil, "only site diff and site apply find"},
		{"undeclared not listed", []string{"vm/*/gone"}, func(*Graph) ([]*Step, error) { return nil, unlisted }, "could not be listed, so it is not among them: host down"},
	} {
		if _, err := Scope(coldStart(), []plan.Phase{plan.PhaseVM}, tc.targets, tc.discover); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

// TestOnlyKeptNone: an empty graph from --only says which phases the
// specs do have steps in.
func TestOnlyKeptNone(t *testing.T) {
	all, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	only := []plan.Phase{plan.PhaseStorage}
	for _, tc := range []struct {
		all  *Graph
		want string
	}{
		{nil, "--only storage keeps no step of these specs, so the graph is empty"},
		{&Graph{}, "--only storage keeps no step of these specs, so the graph is empty; the specs have no steps at all"},
		{all, "--only storage keeps no step of these specs, so the graph is empty; the specs have steps in the phases secrets,network,vm,dns"},
	} {
		if got := OnlyKeptNone(only, tc.all); got != tc.want {
			t.Errorf("OnlyKeptNone = %q\nwant %q", got, tc.want)
		}
	}
}

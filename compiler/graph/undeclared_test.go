package graph

import (
	"reflect"
	"testing"
)

// TestWithUndeclared: steps found by observing join the graph in order,
// --target names them like any other step, and one whose ID a declared
// step has is left out.
func TestWithUndeclared(t *testing.T) {
	spec := coldStart()
	g, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	sjc := spec.Tenants[1]
	found := []*Step{
		UndeclaredVM(sjc, "qemu:///system", "old"),
		UndeclaredNetwork(sjc, "qemu:///system", "old-lan"),
		UndeclaredVM(sjc, "qemu:///system", "keys"), // declared: keys's own step
	}
	all, err := g.With(found)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Steps) != len(g.Steps)+2 {
		t.Fatalf("got %q, want the steps of g and two more", ids(all))
	}
	if s := all.Step("vm/qemu:///system/keys"); s.VM == nil || s.Undeclared != nil {
		t.Errorf("vm/qemu:///system/keys is %+v, want the declared VM's step", s)
	}
	sub, err := all.Targets([]string{"vm/qemu:///system/old"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(sub), []string{"vm/qemu:///system/old"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	sub, err = all.Targets([]string{"network/*"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(sub), []string{"network/qemu:///system/old-lan", "network/qemu:///system/sjc-lan"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNamesOnly(t *testing.T) {
	g, err := Build(coldStart())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		patterns []string
		want     bool
	}{
		{nil, false},
		{[]string{"vm/qemu:///system/keys"}, true},
		{[]string{"vm/qemu:///system/keys", "dns/sjc.example.net."}, true},
		{[]string{"vm/qemu:///system/old"}, false},
		{[]string{"vm/*/keys"}, false},
		{[]string{"vm/qemu:///system/keys", "dns/*"}, false},
	}
	for _, tt := range tests {
		if got := g.NamesOnly(tt.patterns); got != tt.want {
			t.Errorf("NamesOnly(%q) = %v, want %v", tt.patterns, got, tt.want)
		}
	}
}

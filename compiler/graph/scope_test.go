package graph

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestScope: discover's steps join before targets pick (unless every
// target names a declared step), and a target that matches nothing
// says why an undeclared step may be missing.
func TestScope(t *testing.T) {
	spec := coldStart()
	g, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	sjc := spec.Tenants[1]
	calls := 0
	found := func(*Graph) ([]*Step, error) {
		calls++
		return []*Step{UndeclaredVM(sjc, "qemu:///system", "old")}, nil
	}
	unlisted := func(*Graph) ([]*Step, error) { calls++; return nil, errors.New("host down") }
	tests := []struct {
		name     string
		targets  []string
		discover func(*Graph) ([]*Step, error)
		want     []string
		err      string
		calls    int
	}{
		{"found", []string{"vm/qemu:///system/old"}, found, []string{"vm/qemu:///system/old"}, "", 1},
		{"declared only", []string{"vm/qemu:///system/keys"}, found, nil, "", 0},
		{"not listed", []string{"vm/qemu:///system/old"}, unlisted, nil, "could not be listed, so it is not among them: host down", 1},
		{"not looked", []string{"vm/qemu:///system/old"}, nil, nil, "a step only site diff and site apply find", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = 0
			got, err := g.Scope(nil, tt.targets, tt.discover)
			if calls != tt.calls {
				t.Errorf("discover called %d times, want %d", calls, tt.calls)
			}
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "--target: ") || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Scope error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want != nil && !reflect.DeepEqual(ids(got), tt.want) {
				t.Errorf("got %q, want %q", ids(got), tt.want)
			}
		})
	}
}

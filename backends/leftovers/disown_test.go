package leftovers

import (
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
)

// TestSelectDisown: --name values are read relative to the zone unless
// absolute, a repeat counts once, a name spelt with the zone's own name
// but no trailing dot is refused with both ways to write it, and Pick
// keeps the markers at the names and lists the names without any.
func TestSelectDisown(t *testing.T) {
	all := []backends.Mark{
		{Name: "example.org.", Type: "MX", Tenant: "a"},
		{Name: "www.example.org.", Type: "A", Tenant: "a"},
		{Name: "www.example.org.", Type: "AAAA", Tenant: "b"},
	}
	tests := []struct {
		names    []string
		marks    int
		unmarked []string
		err      string
	}{
		{names: nil, marks: 3},
		{names: []string{"www", "WWW.example.org."}, marks: 2},
		{names: []string{"@", "old", "gone.example.org."}, marks: 1, unmarked: []string{"old.example.org.", "gone.example.org."}},
		{names: []string{"www.example.org"}, err: "write --name www (relative to the zone) or --name www.example.org."},
		{names: []string{"example.org"}, err: "write --name @ (the zone apex) or --name example.org."},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.names, ","), func(t *testing.T) {
			s, err := SelectDisown("Example.org", tt.names)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || s.Zone != "example.org." {
				t.Fatalf("Select: %v, zone %q", err, s.Zone)
			}
			marks, unmarked := s.Pick(all)
			if len(marks) != tt.marks || !slices.Equal(unmarked, tt.unmarked) {
				t.Errorf("Pick: %d marks %v, unmarked %q; want %d, %q", len(marks), marks, unmarked, tt.marks, tt.unmarked)
			}
		})
	}
	if _, err := SelectDisown("bad..zone", nil); err == nil || !strings.HasPrefix(err.Error(), "zone: ") {
		t.Errorf("a bad zone: %v", err)
	}
}

package backends

import (
	"strings"
	"testing"
)

func TestDNSMarkerOwner(t *testing.T) {
	for _, tc := range []struct {
		text, tenant string
		ok           bool
	}{
		{"managed by site tenant=sjc", "sjc", true},
		{"managed by site tenant=team-a1", "team-a1", true},
		{"hand-written note", "", false},
		// Words added to a marker name no tenant, and a name no tenant
		// can have is quoted so that no plan prints it raw.
		{"managed by site tenant=sjc (moved)", `"sjc (moved)"`, true},
		{"managed by site tenant=lab and sjc", `"lab and sjc"`, true},
		{"managed by site tenant=lab\n::error::x\x1b[2J", `"lab\n::error::x\x1b[2J"`, true},
		{"managed by site tenant=", `""`, true},
		{"managed by site tenant=" + strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`, true},
	} {
		tenant, ok := DNSMarkerOwner(tc.text)
		if tenant != tc.tenant || ok != tc.ok {
			t.Errorf("DNSMarkerOwner(%q) = %q, %v; want %q, %v", tc.text, tenant, ok, tc.tenant, tc.ok)
		}
	}
	long, _ := DNSMarkerOwner("managed by site tenant=" + strings.Repeat("x", 1<<20))
	if len(long) > 300 {
		t.Errorf("a marker of a megabyte names an owner of %d bytes, want it shortened", len(long))
	}
}

package powerdns

import (
	"testing"

	"github.com/miekg/dns"
)

// TestBelowIsIsSubDomain: the allocation-free test of a name being at
// or below a zone's apex agrees with miekg/dns on lower-case names,
// escaped dots included.
func TestBelowIsIsSubDomain(t *testing.T) {
	for _, c := range []struct{ apex, name string }{
		{"example.test.", "example.test."},
		{"example.test.", "www.example.test."},
		{"example.test.", "a.b.example.test."},
		{"example.test.", "wwwexample.test."},
		{"example.test.", "test."},
		{"example.test.", "other.test."},
		{"example.test.", `a\.example.test.`},
		{"example.test.", `a\\.example.test.`},
		{"example.test.", `a\\\.example.test.`},
		{"2.0.192.in-addr.arpa.", "0/25.2.0.192.in-addr.arpa."},
		{".", "example.test."},
	} {
		if got, want := below(c.apex, c.name), dns.IsSubDomain(c.apex, c.name); got != want {
			t.Errorf("below(%q, %q) = %v, want %v as dns.IsSubDomain", c.apex, c.name, got, want)
		}
	}
}

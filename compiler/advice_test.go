package compiler

import (
	"fmt"
	"testing"

	"github.com/site-tools/site/compiler/rdata"
)

// TestInZone: a relative target's advice names it in the record's zone,
// except in a reverse zone, whose names are no host's.
func TestInZone(t *testing.T) {
	for _, tc := range []struct {
		name, target, zone, want string
	}{
		{"label", "www", "example.org.", `MX host: target "www" is relative; write it absolute with a trailing dot: www.example.org.`},
		{"dotted", "a.example.net", "example.org.", `MX host: target "a.example.net" is relative; write it absolute with a trailing dot: a.example.net. or, in this zone, a.example.net.example.org.`},
		// A name that ends in the zone's own name means that name: the
		// zone added once more would double it.
		{"ends in the zone", "www.example.org", "example.org.", `MX host: target "www.example.org" is relative; write it absolute with a trailing dot: www.example.org.`},
		{"the zone itself", "Example.org", "example.org.", `MX host: target "Example.org" is relative; write it absolute with a trailing dot: Example.org.`},
		{"reverse zone", "host", "2.0.192.in-addr.arpa.", `MX host: target "host" is relative; write it absolute with a trailing dot: host.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rdata.Host(tc.target)
			if got := inZone(fmt.Errorf("MX host: %w", err), tc.zone); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

package rdata

import (
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestIssue28TypesRoundTripMiekg: the canonical form of each type of
// issue 28 is what miekg/dns (the zone parser site import reads BIND
// files with) parses into the same wire data as the input, and what
// miekg/dns prints of it Normalizes back to the same canonical form:
// presentation form and wire agree both ways.
func TestIssue28TypesRoundTripMiekg(t *testing.T) {
	for _, tc := range []struct{ typ, in string }{
		{"LOC", "52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m"},
		{"LOC", "42 21 43.528 S 71 5 6.284 W 24m 1m 200m 10m"},
		{"LOC", "0 N 0 E 0m"},
		{"URI", `10 1 "https://www.example.net/a b"`},
		{"CERT", "PKIX 12 RSASHA256 MIIBIjAN"},
		{"CERT", "65535 65535 255 AAAA"},
		{"SMIMEA", "3 1 1 " + sha256Hex},
		{"HINFO", `"INTEL" "LINUX \"6\""`},
		{"RP", "admin.example.net. txt.example.net."},
		{"RP", ". ."},
	} {
		t.Run(tc.typ+" "+tc.in, func(t *testing.T) {
			canonical, err := Normalize(tc.typ, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			want := wireOf(t, tc.typ, tc.in)
			if got := wireOf(t, tc.typ, canonical); got != want {
				t.Errorf("canonical %q packs as %x, the input as %x", canonical, got, want)
			}
			rr, _ := dns.NewRR("x. 300 IN " + tc.typ + " " + canonical)
			printed := strings.TrimPrefix(rr.String(), rr.Header().String())
			if again, err := Normalize(tc.typ, printed); err != nil || again != canonical {
				t.Errorf("miekg/dns prints %q, which Normalizes to %q (%v), want %q", printed, again, err, canonical)
			}
		})
	}
}

func wireOf(t *testing.T, typ, value string) string {
	t.Helper()
	rr, err := dns.NewRR("x. 300 IN " + typ + " " + value)
	if err != nil || rr == nil {
		t.Fatalf("miekg/dns cannot read %s %q: %v", typ, value, err)
	}
	buf := make([]byte, dns.Len(rr)+64)
	n, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}

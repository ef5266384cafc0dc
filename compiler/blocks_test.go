package compiler

import "testing"

// TestGrantedBlock pins which granted RFC 2317 block, if any, an
// address's reverse name (or a name below it) belongs to.
func TestGrantedBlock(t *testing.T) {
	grants := map[string]string{
		"2.0.192.in-addr.arpa.":       "acme",
		"0/26.2.0.192.in-addr.arpa.":  "shop",
		"8/29.2.0.192.in-addr.arpa.":  "web",
		"12.2.0.192.in-addr.arpa.":    "one",
		"64/26.9.0.192.in-addr.arpa.": "far",
	}
	holder := func(name string) (string, string, bool) {
		for n := name; n != "."; n = parentName(n) {
			if t, ok := grants[n]; ok {
				return n, t, true
			}
		}
		return "", "", false
	}
	tests := []struct{ name, block, tenant, cname string }{
		{"5.2.0.192.in-addr.arpa.", "0/26.2.0.192.in-addr.arpa.", "shop", "5.0/26.2.0.192.in-addr.arpa."},
		{"x.63.2.0.192.in-addr.arpa.", "0/26.2.0.192.in-addr.arpa.", "shop", "63.0/26.2.0.192.in-addr.arpa."},
		{"9.2.0.192.in-addr.arpa.", "8/29.2.0.192.in-addr.arpa.", "web", "9.8/29.2.0.192.in-addr.arpa."}, // the smallest block
		{"12.2.0.192.in-addr.arpa.", "", "", ""},                                                         // the address's own grant
		{"64.2.0.192.in-addr.arpa.", "", "", ""},                                                         // outside every block
		{"05.2.0.192.in-addr.arpa.", "", "", ""},                                                         // not an address's name
		{"2.0.192.in-addr.arpa.", "", "", ""},
		{"5.0/26.2.0.192.in-addr.arpa.", "", "", ""},
		{"100.9.0.192.in-addr.arpa.", "64/26.9.0.192.in-addr.arpa.", "far", "100.64/26.9.0.192.in-addr.arpa."},
		{"www.example.test.", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := grantedBlock(tt.name, holder)
			if ok != (tt.block != "") || a.block != tt.block || a.tenant != tt.tenant || ok && a.cname() != tt.cname {
				t.Errorf("got %q of %q (CNAME %q), %v; want %q of %q (CNAME %q)", a.block, a.tenant, a.cname(), ok, tt.block, tt.tenant, tt.cname)
			}
		})
	}
}

package compiler

import "testing"

// TestGrantedBlock pins which granted RFC 2317 block, if any, an
// address's reverse name (or a name below it) belongs to, whether the
// block is spelt BASE/LEN or FIRST-LAST.
func TestGrantedBlock(t *testing.T) {
	grants := map[string]string{
		"2.0.192.in-addr.arpa.":        "acme",
		"0/26.2.0.192.in-addr.arpa.":   "shop",
		"8/29.2.0.192.in-addr.arpa.":   "web",
		"12.2.0.192.in-addr.arpa.":     "one",
		"64/26.9.0.192.in-addr.arpa.":  "far",
		"0-63.5.0.192.in-addr.arpa.":   "range",
		"10-20.5.0.192.in-addr.arpa.":  "range", // not aligned: 10 to 20
		"7-7.5.0.192.in-addr.arpa.":    "one",   // one address
		"30-0.6.0.192.in-addr.arpa.":   "none",  // no range: an ordinary name
		"0-63.6.0.192.in-addr.arpa.":   "six",
		"05-9.6.0.192.in-addr.arpa.":   "none", // a leading zero: an ordinary name
		"0-63.0.192.in-addr.arpa.":     "none", // not below a /24's reverse name
		"8/29.5.0.192.in-addr.arpa.":   "range",
		"30.5.0.192.in-addr.arpa.":     "own",
		"0/26.6.0.192.in-addr.arpa.":   "six",  // the same addresses as 0-63
		"128-25.7.0.192.in-addr.arpa.": "isp",  // BASE-LEN: FIRST > LAST, so 128/25
		"64-26.7.0.192.in-addr.arpa.":  "isp",  // 64/26, inside 128-25? no: 64 to 127
		"100-24.7.0.192.in-addr.arpa.": "none", // not aligned, and no prefix below a /24: an ordinary name
	}
	claims := map[string]claim{}
	for name, tenant := range grants {
		claims[name] = claim{tenant: tenant}
	}
	o := &operator{claims: claims, blocks: blocksByNet(claims)}
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
		{"5.5.0.192.in-addr.arpa.", "0-63.5.0.192.in-addr.arpa.", "range", "5.0-63.5.0.192.in-addr.arpa."},
		{"17.5.0.192.in-addr.arpa.", "10-20.5.0.192.in-addr.arpa.", "range", "17.10-20.5.0.192.in-addr.arpa."}, // the smallest block
		{"x.20.5.0.192.in-addr.arpa.", "10-20.5.0.192.in-addr.arpa.", "range", "20.10-20.5.0.192.in-addr.arpa."},
		{"21.5.0.192.in-addr.arpa.", "0-63.5.0.192.in-addr.arpa.", "range", "21.0-63.5.0.192.in-addr.arpa."},
		{"7.5.0.192.in-addr.arpa.", "7-7.5.0.192.in-addr.arpa.", "one", "7.7-7.5.0.192.in-addr.arpa."},
		{"64.5.0.192.in-addr.arpa.", "", "", ""},
		{"5.0-63.5.0.192.in-addr.arpa.", "", "", ""},
		{"9.6.0.192.in-addr.arpa.", "0-63.6.0.192.in-addr.arpa.", "six", "9.0-63.6.0.192.in-addr.arpa."},   // 30-0 and 05-9 name no addresses; of 0-63 and 0/26 the first by name
		{"9.5.0.192.in-addr.arpa.", "8/29.5.0.192.in-addr.arpa.", "range", "9.8/29.5.0.192.in-addr.arpa."}, // the smallest across spellings
		{"12.5.0.192.in-addr.arpa.", "8/29.5.0.192.in-addr.arpa.", "range", "12.8/29.5.0.192.in-addr.arpa."},
		{"16.5.0.192.in-addr.arpa.", "10-20.5.0.192.in-addr.arpa.", "range", "16.10-20.5.0.192.in-addr.arpa."},
		{"30.5.0.192.in-addr.arpa.", "", "", ""}, // the address's own grant
		{"9.0.192.in-addr.arpa.", "", "", ""},
		{"200.7.0.192.in-addr.arpa.", "128-25.7.0.192.in-addr.arpa.", "isp", "200.128-25.7.0.192.in-addr.arpa."},
		{"127.7.0.192.in-addr.arpa.", "64-26.7.0.192.in-addr.arpa.", "isp", "127.64-26.7.0.192.in-addr.arpa."},
		{"63.7.0.192.in-addr.arpa.", "", "", ""},
		{"101.7.0.192.in-addr.arpa.", "64-26.7.0.192.in-addr.arpa.", "isp", "101.64-26.7.0.192.in-addr.arpa."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := o.grantedBlock(tt.name)
			if ok != (tt.block != "") || a.block != tt.block || a.tenant != tt.tenant || ok && a.cname() != tt.cname {
				t.Errorf("got %q of %q (CNAME %q), %v; want %q of %q (CNAME %q)", a.block, a.tenant, a.cname(), ok, tt.block, tt.tenant, tt.cname)
			}
		})
	}
}

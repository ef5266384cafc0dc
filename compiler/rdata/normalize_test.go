package rdata

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		typ, in, want, wantErr string
	}{
		{"A", "192.0.2.1", "192.0.2.1", ""},
		{"a", "192.0.2.1", "192.0.2.1", ""},
		{"AAAA", "2001:DB8:0::1", "2001:db8::1", ""},
		{"CNAME", "Target.Example.org.", "target.example.org.", ""},
		{"CNAME", ".", "", "the DNS root"},
		{"NS", "ns1.example.org.", "ns1.example.org.", ""},
		{"NS", "ns1.example.org", "", "NS target \"ns1.example.org\" is relative"},
		{"TXT", `"ab" "cd"`, `"ab" "cd"`, ""},
		{"TXT", `ab "cd"`, `"ab" "cd"`, ""},
		{"TXT", `"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("x", 255) + `" "` + strings.Repeat("x", 45) + `"`, ""},
		{"TXT", `v=spf1`, `"v=spf1"`, ""},
		{"MX", "10 MX.example.org.", "10 mx.example.org.", ""},
		{"SRV", "1 2 3 T.example.org.", "1 2 3 t.example.org.", ""},
		{"CAA", `0 ISSUE "ca.example"`, `0 issue "ca.example"`, ""},
		{"SOA", "whatever", "", `record type "SOA" is not supported`},
		{"A", "2001:db8::1", "", "put it under AAAA"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.in, func(t *testing.T) {
			got, err := Normalize(tt.typ, tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			again, err := Normalize(tt.typ, got)
			if err != nil || again != got {
				t.Errorf("Normalize is not idempotent: %q gave %q, then %q (%v)", tt.in, got, again, err)
			}
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	cases := []struct{ typ, value string }{
		{"A", "192.0.2.1"},
		{"AAAA", "2001:db8::1"},
		{"MX", "10 mx.example.org."},
		{"SRV", "10 5 443 t.example.org."},
		{"TXT", `"v=spf1 mx -all"`},
		{"CAA", `0 issue "letsencrypt.org"`},
	}
	for _, c := range cases {
		b.Run(c.typ, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Normalize(c.typ, c.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzNormalize checks that the canonical form is a fixed point: what
// Normalize returns, Normalize returns unchanged, for every type.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"192.0.2.1", "2001:DB8::1", "Target.Example.org.", `"ab" "cd"`, "10 MX.example.org.",
		"1 2 3 T.example.org.", `0 ISSUE "ca.example"`, "0 .", `128 iodef "\255"`, "01 2 3 .",
		"4 2 ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789", "3 1 1 ab cd",
		"1 . port=443 alpn=h3,h2", `1 . ech="AEX+DQBBAAAg" key65000=abc`, `100 10 "S" "SIP+D2U" "" _sip._udp.Example.NET.`,
		"2371 13 2 " + strings.Repeat("EF", 32), "mQINBFq5 ZXhhbXBsZQ==",
	} {
		for i := range Types {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, value string) {
		typ := Types[int(i)%len(Types)]
		got, err := Normalize(typ, value)
		if err != nil {
			return
		}
		again, err := Normalize(typ, got)
		if err != nil {
			t.Fatalf("Normalize(%s, %q) = %q, which Normalize refuses: %v", typ, value, got, err)
		}
		if again != got {
			t.Fatalf("Normalize(%s, %q) = %q, then %q", typ, value, got, again)
		}
	})
}

package dnsname

import (
	"errors"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	long64 := strings.Repeat("a", 64)
	// 4 labels of 63 octets and 3 dots: 255 octets, 2 over the limit.
	tooLong := strings.Repeat(long63+".", 3) + long63 + "."
	// 253 octets exactly: 3×63 + 61 + 3 dots.
	justFits := strings.Repeat(long63+".", 3) + strings.Repeat("b", 61) + "."

	tests := []struct {
		name, origin string
		want         string
		wantErr      string // substring of the error; "" means no error
	}{
		{name: "@", origin: "example.org.", want: "example.org."},
		{name: "www", origin: "example.org.", want: "www.example.org."},
		{name: "WWW.Example.ORG.", origin: "", want: "www.example.org."},
		{name: "api.example.com.", origin: "example.com.", want: "api.example.com."},
		{name: "Api", origin: "example.com.", want: "api.example.com."},
		{name: "a.b.c", origin: "example.org.", want: "a.b.c.example.org."},
		{name: "_dmarc", origin: "example.org.", want: "_dmarc.example.org."},
		{name: "_sip._tcp", origin: "example.org.", want: "_sip._tcp.example.org."},
		{name: "*", origin: "example.org.", want: "*.example.org."},
		{name: "*.apps", origin: "sjc.example.net.", want: "*.apps.sjc.example.net."},
		{name: "*.Example.org.", origin: "", want: "*.example.org."},
		{name: "r4---sn-abc.googlevideo.com.", origin: "", want: "r4---sn-abc.googlevideo.com."},
		{name: "münchen.de.", origin: "", want: "xn--mnchen-3ya.de."},
		{name: "MÜNCHEN.de.", origin: "", want: "xn--mnchen-3ya.de."},
		{name: "xn--mnchen-3ya.de.", origin: "", want: "xn--mnchen-3ya.de."},
		{name: "XN--MNCHEN-3YA.de.", origin: "", want: "xn--mnchen-3ya.de."},
		{name: "straße", origin: "example.de.", want: "xn--strae-oqa.example.de."},
		{name: "bücher", origin: "xn--mnchen-3ya.de.", want: "xn--bcher-kva.xn--mnchen-3ya.de."},
		{name: "a。b.example.", origin: "", want: "a.b.example."},
		{name: ".", origin: "", want: "."},
		{name: "host", origin: ".", want: "host."},
		{name: "10", origin: "2.0.192.in-addr.arpa.", want: "10.2.0.192.in-addr.arpa."},
		{name: long63, origin: "example.org.", want: long63 + ".example.org."},
		{name: justFits, origin: "", want: justFits},

		{name: "", origin: "example.org.", wantErr: "empty"},
		{name: "@", origin: "", wantErr: "no zone here"},
		{name: "www", origin: "", wantErr: `write it absolute with a trailing dot: "www."`},
		{name: "a..b", origin: "example.org.", wantErr: "two dots in a row"},
		{name: ".a", origin: "example.org.", wantErr: "starts with a dot"},
		{name: "a..", origin: "", wantErr: "empty label"},
		{name: "..", origin: "", wantErr: "empty label"},
		{name: "*..", origin: "example.org.", wantErr: "empty label"},
		{name: "*.", origin: "", want: "*."},
		{name: long64, origin: "example.org.", wantErr: "more than 63"},
		{name: tooLong, origin: "", wantErr: "more than 253"},
		{name: "a.*", origin: "example.org.", wantErr: "only as the whole leftmost label"},
		{name: "*a", origin: "example.org.", wantErr: "only as the whole leftmost label"},
		{name: "**", origin: "example.org.", wantErr: "only as the whole leftmost label"},
		{name: "bad name", origin: "example.org.", wantErr: `use only letters, digits`},
		{name: "a/b", origin: "example.org.", wantErr: `only an RFC 2317 classless reverse name`},
		// RFC 2317 classless reverse names, only below in-addr.arpa.
		{name: "0/26.2.0.192.in-addr.arpa.", origin: "", want: "0/26.2.0.192.in-addr.arpa."},
		{name: "0/26.2.0.192.IN-ADDR.ARPA.", origin: "", want: "0/26.2.0.192.in-addr.arpa."},
		{name: "5", origin: "64/26.2.0.192.in-addr.arpa.", want: "5.64/26.2.0.192.in-addr.arpa."},
		{name: "128/25", origin: "2.0.192.in-addr.arpa.", want: "128/25.2.0.192.in-addr.arpa."},
		{name: "0/26.example.org.", origin: "", wantErr: `only an RFC 2317 classless reverse name`},
		{name: "0/26.2.0.192.ip6.arpa.", origin: "", wantErr: `only an RFC 2317 classless reverse name`},
		{name: "00/26.2.0.192.in-addr.arpa.", origin: "", wantErr: `without leading zeros`},
		{name: "32/26.2.0.192.in-addr.arpa.", origin: "", wantErr: `not the first address of a /26 block`},
		{name: "32/26.2.0.192.in-addr.arpa.", origin: "", wantErr: `or name the addresses from 32 first to last, as RFC 2317 allows too: "32-95"`},
		{name: "250/29.2.0.192.in-addr.arpa.", origin: "", wantErr: `or name the addresses from 250 first to last, as RFC 2317 allows too: "250-255"`},
		{name: "0-63.2.0.192.in-addr.arpa.", origin: "", want: "0-63.2.0.192.in-addr.arpa."}, // the FIRST-LAST spelling: an ordinary label here
		{name: "0/24.2.0.192.in-addr.arpa.", origin: "", wantErr: `outside 25 to 32`},
		{name: "0/26/1.2.0.192.in-addr.arpa.", origin: "", wantErr: `not an RFC 2317 classless block`},
		{name: "a/26.2.0.192.in-addr.arpa.", origin: "", wantErr: `not an RFC 2317 classless block`},
		{name: "256/32.2.0.192.in-addr.arpa.", origin: "", wantErr: `not the first address`},
		{name: `a\.b`, origin: "example.org.", wantErr: `use only letters, digits`},
		{name: "xn--zz", origin: "example.org.", wantErr: "internationalised"},
		{name: "xn--abc", origin: "example.org.", wantErr: "internationalised"},
		{name: "a\u200db", origin: "example.org.", wantErr: "internationalised"},
		{name: "\x9f", origin: ".", wantErr: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"|"+tt.origin, func(t *testing.T) {
			got, err := Canonical(tt.name, tt.origin)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Canonical(%q, %q) = %q, want an error containing %q", tt.name, tt.origin, got, tt.wantErr)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T is not a *Error: %v", err, err)
				}
				if e.Name != tt.name {
					t.Errorf("Error.Name: got %q, want %q", e.Name, tt.name)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error: got %q, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Canonical(%q, %q): %v", tt.name, tt.origin, err)
			}
			if got != tt.want {
				t.Errorf("Canonical(%q, %q): got %q, want %q", tt.name, tt.origin, got, tt.want)
			}
		})
	}
}

// TestIncident2_TwoSpellingsOneName is INCIDENTS.md 2 ("Two spellings of
// one name"): an absolute and a relative spelling of one name must
// canonicalise to the same key.
func TestIncident2_TwoSpellingsOneName(t *testing.T) {
	abs, err := Canonical("api.example.com.", "example.com.")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := Canonical("API", "example.com.")
	if err != nil {
		t.Fatal(err)
	}
	if abs != rel {
		t.Errorf("got %q and %q, want one spelling", abs, rel)
	}
}

func TestIsSubdomain(t *testing.T) {
	tests := []struct {
		name, zone string
		want       bool
	}{
		{"example.org.", "example.org.", true},
		{"www.example.org.", "example.org.", true},
		{"a.b.example.org.", "example.org.", true},
		{"*.apps.example.org.", "example.org.", true},
		{"badexample.org.", "example.org.", false},
		{"example.org.", "www.example.org.", false},
		{"example.com.", "example.org.", false},
		{"example.org.", ".", true},
		{".", ".", true},
	}
	for _, tt := range tests {
		t.Run(tt.name+"|"+tt.zone, func(t *testing.T) {
			if got := IsSubdomain(tt.name, tt.zone); got != tt.want {
				t.Errorf("IsSubdomain(%q, %q): got %v, want %v", tt.name, tt.zone, got, tt.want)
			}
		})
	}
}

func TestRelative(t *testing.T) {
	tests := []struct {
		name, zone, want string
	}{
		{"example.org.", "example.org.", "@"},
		{"www.example.org.", "example.org.", "www"},
		{"_sip._tcp.example.org.", "example.org.", "_sip._tcp"},
		{"*.apps.example.org.", "example.org.", "*.apps"},
		{"badexample.org.", "example.org.", "badexample.org."},
		{"other.net.", "example.org.", "other.net."},
		{"host.", ".", "host"},
		{".", ".", "@"},
		// Written relative these would end in the zone's name, which
		// vet refuses as a mistake: absolute instead.
		{"example.org.example.org.", "example.org.", "example.org.example.org."},
		{"www.example.org.example.org.", "example.org.", "www.example.org.example.org."},
		{"org.example.org.", "example.org.", "org"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"|"+tt.zone, func(t *testing.T) {
			got := Relative(tt.name, tt.zone)
			if got != tt.want {
				t.Errorf("Relative(%q, %q): got %q, want %q", tt.name, tt.zone, got, tt.want)
			}
			// What Relative writes must read back as the same name.
			back, err := Canonical(got, tt.zone)
			if err != nil {
				t.Fatalf("Canonical(%q, %q): %v", got, tt.zone, err)
			}
			if back != tt.name {
				t.Errorf("Canonical(Relative(%q)): got %q, want %q", tt.name, back, tt.name)
			}
		})
	}
}

func TestIsWildcard(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"*.example.org.", true},
		{"*.apps.example.org.", true},
		{"*.", true},
		{"www.example.org.", false},
		{"a.*.example.org.", false},
		{"example.org.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsWildcard(tt.name); got != tt.want {
				t.Errorf("IsWildcard(%q): got %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}

func BenchmarkCanonical(b *testing.B) {
	cases := []struct{ label, name, origin string }{
		{"relative", "Keys", "sjc.example.net."},
		{"absolute", "forge.SJC.example.net.", ""},
		{"idna", "bücher.münchen.de.", ""},
	}
	for _, c := range cases {
		b.Run(c.label, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Canonical(c.name, c.origin); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"@", "www", "WWW.Example.ORG.", "*.apps", "_sip._tcp", "münchen.de.",
		"xn--mnchen-3ya.de.", "a..b", "a。b", ".", "*", "a.*", "ß", "ＡＢＣ",
		"r4---sn-abc", strings.Repeat("a", 64), "\u200d", "x\x00y",
	} {
		f.Add(s, "example.org.")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, name, origin string) {
		if origin != "" {
			// origin must be canonical; make it so or skip.
			o, err := Canonical(origin, "")
			if err != nil {
				return
			}
			origin = o
		}
		got, err := Canonical(name, origin)
		if err != nil {
			return
		}
		if !strings.HasSuffix(got, ".") {
			t.Fatalf("Canonical(%q, %q) = %q: not absolute", name, origin, got)
		}
		again, err := Canonical(got, "")
		if err != nil {
			t.Fatalf("Canonical(%q) after Canonical(%q, %q): %v", got, name, origin, err)
		}
		if again != got {
			t.Fatalf("not idempotent: Canonical(%q, %q) = %q, then %q", name, origin, got, again)
		}
		if origin != "" && !IsSubdomain(got, origin) && !strings.HasSuffix(name, ".") {
			t.Fatalf("relative %q qualified by %q gave %q, outside the origin", name, origin, got)
		}
	})
}

func TestMeantAbsolute(t *testing.T) {
	for _, tt := range []struct {
		name, zone, abs string
		ok              bool
	}{
		{"www.example.org", "example.org.", "www.example.org.", true},
		{"Www.Example.ORG", "example.org.", "www.example.org.", true},
		{"example.org", "example.org.", "example.org.", true},
		{"www", "example.org.", "", false},
		{"www.example", "example.org.", "", false},
		{"www.example.org.", "example.org.", "", false},
		{"@", "example.org.", "", false},
		{"host", ".", "", false},
	} {
		abs, ok := MeantAbsolute(tt.name, tt.zone)
		if abs != tt.abs || ok != tt.ok {
			t.Errorf("MeantAbsolute(%q, %q) = %q, %v; want %q, %v", tt.name, tt.zone, abs, ok, tt.abs, tt.ok)
		}
	}
}

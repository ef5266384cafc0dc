package rdata

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const sha256Hex = "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789"

// TestNormalizeGolden pins the canonical form of every type beyond the
// first eight, and the errors for bad values, in
// testdata/normalize.golden: one line per input, "TYPE input => form"
// or "TYPE input => error: ...".
func TestNormalizeGolden(t *testing.T) {
	inputs := []struct{ typ, in string }{
		{"PTR", "Host.Example.NET."},
		{"PTR", "host"},
		{"SSHFP", "4 2 " + sha256Hex},
		{"SSHFP", "1 1 0123456789ABCDEF0123 456789abcdef01234567"},
		{"SSHFP", "4 2 abcd"},
		{"SSHFP", "4 2 xyz"},
		{"SSHFP", "0 2 " + sha256Hex},
		{"TLSA", "3 1 1 " + sha256Hex},
		{"TLSA", "3 0 0 30820122"},
		{"TLSA", "4 1 1 " + sha256Hex},
		{"TLSA", "3 1 2 " + sha256Hex},
		{"HTTPS", "1 . alpn=h2,h3 port=443"},
		{"HTTPS", `1 . port="443" alpn="h3,h2" ipv6hint=2001:DB8::1 ipv4hint=192.0.2.2,192.0.2.1 mandatory=port,alpn no-default-alpn`},
		{"SVCB", "0 Svc.Example.NET."},
		{"SVCB", `1 svc.example.net. ech="AEX+DQBBAAAg" key65000=abc`},
		{"SVCB", "0 svc.example.net. alpn=h2"},
		{"HTTPS", "1 . port=99999"},
		{"HTTPS", "1 . colour=blue"},
		{"HTTPS", "1 . mandatory=alpn port=443"},
		{"HTTPS", "1 . port=443 port=80"},
		{"HTTPS", "1 target.example.net"},
		{"NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.Example.NET.`},
		{"NAPTR", `100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" .`},
		{"NAPTR", `100 10 u E2U+sip "!^.*$!sip:a\\b@example.com!" .`},
		{"NAPTR", `100 10 "S+" "SIP+D2U" "" _sip._udp.example.net.`},
		{"NAPTR", `100 10 "u" "E2U+sip" "!^.*$!sip:info@example.com!" x.example.net.`},
		{"NAPTR", `100 10 "S" "SIP+D2U" ""`},
		{"DS", "2371 13 2 " + sha256Hex},
		{"DS", "2371 13 1 0123456789abcdef0123456789abcdef01234567"},
		{"DS", "2371 13 4 " + sha256Hex},
		{"DS", "70000 13 2 " + sha256Hex},
		{"DNAME", "Target.Example.NET."},
		{"DNAME", "."},
		{"OPENPGPKEY", "mQINBFq5 ZXhh\nbXBsZQ=="},
		{"OPENPGPKEY", "not base64!"},
		{"DHCID", "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA="},
		{"DHCID", ""},
		{"ALIAS", "Target.Example.NET."},
		{"ALIAS", "*.example.net."},
		// issue 28
		{"LOC", "51 30 12.748 N 0 7 39.611 W 0.00m 0.00m 0.00m 0.00m"},
		{"LOC", "52 N 1 E 10m"},
		{"LOC", "42 21 43.528 N 71 5 6.284 W -24m 1m 200m 10m"},
		{"LOC", "91 0 0 N 0 0 0 E 0m"},
		{"LOC", "north pole"},
		{"URI", `10 1 "https://www.example.net/a b"`},
		{"URI", `10 1 https://x.example/`},
		{"URI", `10 1 "not a uri"`},
		{"URI", `70000 1 "https://x.example/"`},
		{"CERT", "PKIX 12 RSASHA256 MIIB IjAN"},
		{"CERT", "1 12 8 MIIBIjAN"},
		{"CERT", "URI 0 0 aHR0cDovL2V4YW1wbGU="},
		{"CERT", "NOPE 0 0 AAAA"},
		{"CERT", "1 0 0 not-base64!"},
		{"SMIMEA", "3 1 1 " + sha256Hex},
		{"SMIMEA", "3 1 1 abcd"},
		{"HINFO", `"INTEL" "LINUX"`},
		{"HINFO", `PC "a \"b\""`},
		{"HINFO", `"only one"`},
		{"RP", "Admin.Example.NET. TXT.example.net."},
		{"RP", ". ."},
		{"RP", "admin.example.net"},
	}
	var b strings.Builder
	for _, in := range inputs {
		got, err := Normalize(in.typ, in.in)
		if err != nil {
			fmt.Fprintf(&b, "%s %q => error: %v\n", in.typ, in.in, err)
			continue
		}
		fmt.Fprintf(&b, "%s %q => %s\n", in.typ, in.in, got)
		if again, err := Normalize(in.typ, got); err != nil || again != got {
			t.Errorf("Normalize(%s, %q) is not a fixed point: %q gave %q (%v)", in.typ, in.in, got, again, err)
		}
	}
	golden(t, "normalize.golden", b.String())
}

// TestFields: a struct written in the language and the value it makes
// are each other's inverse, for every struct type.
func TestFields(t *testing.T) {
	tests := []struct {
		typ     string
		fields  map[string]any
		want    string
		wantErr string
	}{
		{"SSHFP", map[string]any{"algorithm": int64(4), "type": int64(2), "fingerprint": sha256Hex}, "4 2 " + strings.ToLower(sha256Hex), ""},
		{"TLSA", map[string]any{"usage": 3.0, "selector": 1.0, "matching_type": 1.0, "certificate": sha256Hex}, "3 1 1 " + strings.ToLower(sha256Hex), ""},
		{"HTTPS", map[string]any{"priority": 1, "target": ".", "params": "port=443 alpn=h2"}, "1 . alpn=h2 port=443", ""},
		{"SVCB", map[string]any{"priority": 0, "target": "svc.example.net."}, "0 svc.example.net.", ""},
		{"NAPTR", map[string]any{"order": 100, "preference": 10, "flags": "S", "service": "SIP+D2U", "regexp": "", "replacement": "_sip._udp.example.net."},
			`100 10 "S" "SIP+D2U" "" _sip._udp.example.net.`, ""},
		{"DS", map[string]any{"key_tag": 2371, "algorithm": 13, "digest_type": 2, "digest": sha256Hex}, "2371 13 2 " + strings.ToLower(sha256Hex), ""},
		{"DS", map[string]any{"key_tag": 2371, "algorithm": 13, "digest_type": 2, "digest": "abcd"}, "", "DS digest is 2 octets, but digest_type 2 takes 32 (64 hex digits)"},
		{"DS", map[string]any{"algorithm": 13, "digest_type": 2, "digest": sha256Hex}, "", "DS key_tag <nil> is not an integer"},
		{"TLSA", map[string]any{"usage": 1.5, "selector": 1, "matching_type": 1, "certificate": sha256Hex}, "", "TLSA usage 1.5 is not an integer"},
		{"MX", map[string]any{}, "", "has no struct form"},
		{"URI", map[string]any{"priority": 10, "weight": 1, "target": "https://www.example.net/"}, `10 1 "https://www.example.net/"`, ""},
		{"CERT", map[string]any{"type": 1, "key_tag": 12, "algorithm": 8, "certificate": "MIIB IjAN"}, "1 12 8 MIIBIjAN", ""},
		{"SMIMEA", map[string]any{"usage": 3, "selector": 1, "matching_type": 1, "certificate": sha256Hex}, "3 1 1 " + strings.ToLower(sha256Hex), ""},
		{"SMIMEA", map[string]any{"usage": 4, "selector": 1, "matching_type": 1, "certificate": sha256Hex}, "", "SMIMEA usage 4 is out of range"},
		{"HINFO", map[string]any{"cpu": "INTEL", "os": ""}, `"INTEL" ""`, ""},
		{"RP", map[string]any{"mbox": "Hostmaster.Example.NET.", "txt": "."}, "hostmaster.example.net. .", ""},
		{"RP", map[string]any{"mbox": "hostmaster", "txt": "."}, "", "RP mbox: target \"hostmaster\" is relative"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+" "+tt.want+tt.wantErr, func(t *testing.T) {
			got, err := FromFields(tt.typ, tt.fields)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			f, err := ToFields(tt.typ, got)
			if err != nil {
				t.Fatalf("ToFields(%q): %v", got, err)
			}
			if again, err := FromFields(tt.typ, f); err != nil || again != got {
				t.Errorf("FromFields(ToFields(%q)) = %q (%v)", got, again, err)
			}
		})
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestSOA(t *testing.T) {
	s, err := ParseSOA("NS1.example.net. Hostmaster.example.net. 2026113001 10800 3600 604800 3600")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.String(), "ns1.example.net. hostmaster.example.net. 2026113001 10800 3600 604800 3600"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"a. b. 1 2 3 4", "a. b. 1 2 3 4 x", "a. b. 1 2 3 4 4294967296"} {
		if _, err := ParseSOA(bad); err == nil {
			t.Errorf("ParseSOA(%q): got no error", bad)
		}
	}
	tests := []struct{ in, want, wantErr string }{
		{in: "hostmaster@example.net", want: "hostmaster.example.net."},
		{in: "Jane.Doe@Example.NET.", want: `jane\.doe.example.net.`},
		{in: "hostmaster.example.net.", want: "hostmaster.example.net."},
		{in: "hostmaster.example.net", wantErr: "trailing dot"},
		{in: "@example.net", wantErr: "plain mailbox name"},
	}
	for _, tt := range tests {
		got, err := Mbox(tt.in)
		checkResult(t, got, err, tt.want, tt.wantErr)
	}
}

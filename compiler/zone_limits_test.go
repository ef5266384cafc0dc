package compiler

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestRecordWireLimits pins the limits DNS puts on record data: 65535
// octets per record, and an RRset that must fit in one 65535-octet
// message.
func TestRecordWireLimits(t *testing.T) {
	quoted := func(s string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\"%05d%s\", ", i, s)
		}
		return strings.TrimSuffix(b.String(), ", ")
	}
	addrs := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\"10.%d.%d.%d\", ", i>>16&255, i>>8&255, i&255)
		}
		return strings.TrimSuffix(b.String(), ", ")
	}
	for _, tc := range []struct {
		name, records string
		want          string // "" for valid
	}{
		{"64 KB TXT", `www: TXT: [` + quoted(strings.Repeat("x", 65000-5), 1) + `]`, ""},
		{"TXT one octet over a record", `www: TXT: [` + quoted(strings.Repeat("x", 65280-5), 1) + `]`,
			`a.cue:5:23: tenants.a.dns.zones."a.example.test".records.www.TXT.0: this TXT record is 65536 octets on the wire; DNS carries at most 65535 per record: split the data over several records or names`},
		// 270 × (12 + 1 + 250) + 12 + 20 + 4: header, question, records.
		{"TXT RRset over a message", `www: TXT: [` + quoted(strings.Repeat("y", 245), 270) + `]`,
			`a.cue:5:17: tenants.a.dns.zones."a.example.test".records.www.TXT: the 270 TXT records of www.a.example.test. need a 71046-octet answer; a DNS message holds at most 65535 (over TCP): use fewer or shorter values`},
		{"4000 A records fit", `www: A: [` + addrs(4000) + `]`, ""},
		{"4100 A records do not", `www: A: [` + addrs(4100) + `]`,
			`a.cue:5:17: tenants.a.dns.zones."a.example.test".records.www.A: the 4100 A records of www.a.example.test. need a 65636-octet answer; a DNS message holds at most 65535 (over TCP): use fewer or shorter values`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package tenants\n\ntenants: a: {domain: \"a.example.test\"\n\tdns: zones: \"a.example.test\": {provider: \"pdns\"\n\t\trecords: " + tc.records + "}}\n"
			_, err := LoadSource(ConfigName, []byte(hostileSite), "a.cue", []byte(src))
			var diags Diagnostics
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %.300v, want no error", err)
			case tc.want == "":
			case !errors.As(err, &diags) || len(diags) != 1:
				t.Fatalf("got %.300v, want one diagnostic", err)
			case diags[0].Format(nil) != tc.want:
				t.Errorf("got %q\nwant %q", diags[0].Format(nil), tc.want)
			}
		})
	}
}

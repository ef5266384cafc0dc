package compiler

import (
	"errors"
	"strings"
	"testing"
)

const delegationSite = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: a: {domains: ["example.com"], providers: ["pdns"]}
`

// TestDSWithoutDelegation: a DS the parent zone publishes, written as
// records or for a signed child zone, warns unless the parent's records
// delegate the child's name with NS (or an ignore rule leaves that NS
// to another writer). The child zone's own apex NS is not a delegation.
func TestDSWithoutDelegation(t *testing.T) {
	for _, tc := range []struct {
		name, zones string
		want        []string // warnings, as Format prints them
	}{{
		name: "DS written, no NS",
		zones: `"example.com": {provider: "pdns", records: {
			child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
		}}`,
		want: []string{`a.cue:5:4: warning: tenants.a.dns.zones."example.com".records.child.DS: child.example.com. has a DS but no NS in zone example.com.: a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates child.example.com.; add child: NS: [the child zone's name servers] to zone example.com.'s records, or an ignore rule for child NS if another writer delegates it`},
	}, {
		name: "DS written with its NS",
		zones: `"example.com": {provider: "pdns", records: {
			child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
			child: NS: ["ns1.example.net."]
		}}`,
	}, {
		name: "DS written, NS at another name",
		zones: `"example.com": {provider: "pdns", records: {
			"a.b": DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
			other: NS: ["ns1.example.net."]
		}}`,
		want: []string{`a.cue:5:4: warning: tenants.a.dns.zones."example.com".records."a.b".DS: a.b.example.com. has a DS but no NS in zone example.com.: a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates a.b.example.com.; add "a.b": NS: [the child zone's name servers] to zone example.com.'s records, or an ignore rule for "a.b" NS if another writer delegates it`},
	}, {
		name: "DS written, NS left to another writer",
		zones: `"example.com": {provider: "pdns", ignore: [{name: "child", type: "NS"}], records: {
			child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
		}}`,
	}, {
		// A child zone declared here but signed outside site: its DS is
		// the parent's to write by hand, at the cut, and needs its NS
		// there as much as any DS (as for another tenant's child).
		name: "DS written for a declared child, no NS",
		zones: `"example.com": {provider: "pdns", records: {
			child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
		}}
		"child.example.com": {provider: "pdns", records: "@": A: ["192.0.2.1"]}`,
		want: []string{`a.cue:5:4: warning: tenants.a.dns.zones."example.com".records.child.DS: child.example.com. has a DS but no NS in zone example.com.: a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates child.example.com.; add child: NS: [the child zone's name servers] to zone example.com.'s records, or an ignore rule for child NS if another writer delegates it`},
	}, {
		name: "DS written for a declared child with its NS",
		zones: `"example.com": {provider: "pdns", records: {
			child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
			child: NS: ["ns1.example.net."]
		}}
		"child.example.com": {provider: "pdns", records: "@": A: ["192.0.2.1"]}`,
	}, {
		name: "signed child, no NS in the parent",
		zones: `"example.com": {provider: "pdns", records: www: A: ["192.0.2.1"]}
		"sub.example.com": {provider: "pdns", dnssec: true}`,
		want: []string{`a.cue:5:3: warning: tenants.a.dns.zones."sub.example.com": zone sub.example.com. is signed (dnssec: true), so site publishes its DS in zone example.com., which has no NS at sub.example.com.: a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates sub.example.com.; add sub: NS: [the child zone's name servers] to zone example.com.'s records, or an ignore rule for sub NS if another writer delegates it (also at a.cue:4:3)`},
	}, {
		// The child's apex NS are the child zone's own data: the parent
		// still lacks the delegation, which the warning spells out.
		name: "signed child with apex NS, none in the parent",
		zones: `"example.com": {provider: "pdns"}
		"sub.example.com": {provider: "pdns", dnssec: true, records: "@": NS: ["ns2.example.net.", "ns1.example.net."]}`,
		want: []string{`a.cue:5:3: warning: tenants.a.dns.zones."sub.example.com": zone sub.example.com. is signed (dnssec: true), so site publishes its DS in zone example.com., which has no NS at sub.example.com.: a DS belongs at a delegation (RFC 4035 §2.4), and resolvers ignore it without the NS that delegates sub.example.com.; add sub: NS: ["ns1.example.net.", "ns2.example.net."] (the child zone's apex NS, which delegate nothing by themselves) to zone example.com.'s records, or an ignore rule for sub NS if another writer delegates it (also at a.cue:4:3)`},
	}, {
		name: "signed child delegated",
		zones: `"example.com": {provider: "pdns", records: sub: NS: ["ns1.example.net."]}
		"sub.example.com": {provider: "pdns", dnssec: true}`,
	}, {
		name:  "signed zone without a parent zone",
		zones: `"sub.example.com": {provider: "pdns", dnssec: true}`,
	}, {
		name: "unsigned child, no NS in the parent",
		zones: `"example.com": {provider: "pdns"}
		"sub.example.com": {provider: "pdns"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package tenants\n\ntenants: a: {domain: \"example.com\", dns: zones: {\n\t\t" + tc.zones + "\n}}\n"
			var got []string
			_, err := LoadSourceWith("site.cue", []byte(delegationSite), "a.cue", []byte(src), Options{Warn: func(ds Diagnostics) {
				for _, d := range ds {
					if !d.Warning {
						t.Errorf("Warn was given an error: %s", d.Format(nil))
					}
					got = append(got, d.Format(nil))
				}
			}})
			if err != nil {
				t.Fatalf("the spec does not load:\n%v\n%s", err, src)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

const digest = "e2d3c916f6deeac73294e8268fb5885044a833fc5459588f4a9184cfc41a5766"

// TestWarningsBesideErrors: a spec with errors reports its warnings in
// the same Diagnostics, marked, and Warn gets nothing, since the spec
// did not load.
func TestWarningsBesideErrors(t *testing.T) {
	src := `package tenants

tenants: a: {domain: "example.com", dns: zones: "example.com": {provider: "pdns", records: {
	child: DS: [{key_tag: 2371, algorithm: 13, digest_type: 2, digest: "` + digest + `"}]
	www: CNAME: "example.com"
}}}
`
	warned := false
	_, err := LoadSourceWith("site.cue", []byte(delegationSite), "a.cue", []byte(src), Options{Warn: func(Diagnostics) { warned = true }})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("got %v, want Diagnostics", err)
	}
	if warned {
		t.Error("Warn was called for a spec that did not load")
	}
	var warnings, errs int
	for _, d := range diags {
		if d.Warning {
			warnings++
			if !strings.Contains(d.Format(nil), ": warning: ") {
				t.Errorf("a warning without its word: %s", d.Format(nil))
			}
		} else {
			errs++
		}
	}
	if warnings != 1 || errs != 1 {
		t.Errorf("got %d warnings and %d errors, want 1 and 1:\n%v", warnings, errs, err)
	}
}

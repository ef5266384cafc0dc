package compiler

import (
	"strings"
	"testing"
)

// TestDanglingTargets: an MX, CNAME, ALIAS, SRV or NS naming a name in
// a zone its tenant declares warns, at the value that names it (the
// list's element, or the single target's field), as an error about
// that value would be, when
// that zone writes nothing there; a name with any record, the apex, a
// name at or below a delegation or a DNAME, one under a wildcard, one
// a VM publishes and one an ignore rule leaves to another writer do
// not, and neither does a name outside the tenant's zones.
func TestDanglingTargets(t *testing.T) {
	at := func(lineCol string) string {
		return "a.cue:" + lineCol + `: warning: tenants.a.dns.zones."example.com".records.`
	}
	for _, tc := range []struct {
		name, records string
		extra         string // more zones, and VMs, of tenant a
		want          []string
	}{{
		name:    "MX naming a dropped host",
		records: `"@": MX: [{priority: 10, host: "mx1.example.com."}]`,
		want:    []string{at("4:14") + `"@".MX.0: example.com. MX names mx1.example.com., but zone example.com. (tenant a) has no records at mx1.example.com., so it would not resolve; add records at mx1 to that zone, or an ignore rule for mx1 if another writer serves it`},
	}, {
		name: "MX in a second block of its name",
		records: `"@": A: ["192.0.2.1"]
			"@": MX: [{priority: 10, host: "mx.example.org."}, {priority: 20, host: "mx1.example.com."}]`,
		want: []string{at("5:55") + `"@".MX.1: example.com. MX names mx1.example.com., but zone example.com. (tenant a) has no records at mx1.example.com., so it would not resolve; add records at mx1 to that zone, or an ignore rule for mx1 if another writer serves it`},
	}, {
		name: "MX naming a host with its address",
		records: `"@": MX: [{priority: 10, host: "mx1.example.com."}]
			mx1: A: ["192.0.2.1"]`,
	}, {
		name:    "CNAME naming a dropped name",
		records: `www: CNAME: "web.example.com."`,
		want:    []string{at("4:9") + `www.CNAME: www.example.com. CNAME names web.example.com., but zone example.com. (tenant a) has no records at web.example.com., so it would not resolve; add records at web to that zone, or an ignore rule for web if another writer serves it`},
	}, {
		name:    "ALIAS at the apex naming a dropped name",
		records: `"@": ALIAS: "lb.example.com."`,
		want:    []string{at("4:9") + `"@".ALIAS: example.com. ALIAS names lb.example.com., but zone example.com. (tenant a) has no records at lb.example.com., so it would not resolve; add records at lb to that zone, or an ignore rule for lb if another writer serves it`},
	}, {
		name:    "SRV naming a dropped target",
		records: `"_sip._tcp": SRV: [{priority: 10, weight: 5, port: 5060, target: "sip.example.com."}]`,
		want:    []string{at("4:23") + `"_sip._tcp".SRV.0: _sip._tcp.example.com. SRV names sip.example.com., but zone example.com. (tenant a) has no records at sip.example.com., so it would not resolve; add records at sip to that zone, or an ignore rule for sip if another writer serves it`},
	}, {
		name:    "apex NS naming a server without its address",
		records: `"@": NS: ["ns1.example.com.", "ns.example.net."]`,
		want:    []string{at("4:14") + `"@".NS.0: example.com. NS names ns1.example.com., but zone example.com. (tenant a) has no records at ns1.example.com., so it would not resolve; add records at ns1 to that zone, or an ignore rule for ns1 if another writer serves it`},
	}, {
		name:    "delegation NS naming a server inside the child",
		records: `lab: NS: ["ns1.lab.example.com."]`,
		extra: `
		}, dns: zones: "lab.example.com": {provider: "pdns", records: www: A: ["192.0.2.1"]`,
	}, {
		name:    "delegation NS naming a dropped server of the parent",
		records: `lab: NS: ["ns1.example.com."]`,
		want:    []string{at("4:14") + `lab.NS.0: lab.example.com. NS names ns1.example.com., but zone example.com. (tenant a) has no records at ns1.example.com., so it would not resolve; add records at ns1 to that zone, or an ignore rule for ns1 if another writer serves it`},
	}, {
		name:    "target outside every declared zone",
		records: `"@": MX: [{priority: 10, host: "mx.example.org."}]`,
	}, {
		name:    "target the apex",
		records: `www: CNAME: "example.com."`,
	}, {
		name: "target with another type only",
		records: `www: CNAME: "web.example.com."
			web: TXT: ["x"]`,
	}, {
		name: "target below a delegation",
		records: `www: CNAME: "www.sub.example.com."
			sub: NS: ["ns1.example.net."]`,
	}, {
		name: "target at a delegation",
		records: `"@": MX: [{priority: 10, host: "sub.example.com."}]
			sub: NS: ["ns1.example.net."]`,
	}, {
		name: "target under a wildcard",
		records: `www: CNAME: "x.apps.example.com."
			"*.apps": A: ["192.0.2.1"]`,
	}, {
		name: "target below a DNAME",
		records: `www: CNAME: "x.old.example.com."
			old: DNAME: "new.example.net."`,
	}, {
		name:    "target left to another writer",
		records: `"@": MX: [{priority: 10, host: "mx1.example.com."}]`,
		extra:   `, ignore: [{name: "mx1", type: "A"}]`,
	}, {
		name:    "target a VM publishes",
		records: `www: CNAME: "keys.example.com."`,
		extra: `
		}, vms: keys: {host: "h", autostart: true, running: true, vcpus: 1, memory: "1GiB",
			publish: {zone: "example.com", names: ["keys"], address: "192.0.2.10"}`,
	}, {
		name:    "target in another declared zone",
		records: `www: CNAME: "web.sub.example.com."`,
		extra: `
		}, dns: zones: "sub.example.com": {provider: "pdns", records: other: A: ["192.0.2.1"]`,
		want: []string{at("4:9") + `www.CNAME: www.example.com. CNAME names web.sub.example.com., but zone sub.example.com. (tenant a) has no records at web.sub.example.com., so it would not resolve; add records at web to that zone, or an ignore rule for web if another writer serves it`},
	}, {
		name:    "target in another tenant's zone",
		records: `www: CNAME: "web.b.example.net."`,
	}, {
		name:    "two values naming one dropped host warn once, at the first written",
		records: `"@": MX: [{priority: 20, host: "mx1.example.com."}, {priority: 10, host: "mx1.example.com."}]`,
		want:    []string{at("4:14") + `"@".MX.0: example.com. MX names mx1.example.com., but zone example.com. (tenant a) has no records at mx1.example.com., so it would not resolve; add records at mx1 to that zone, or an ignore rule for mx1 if another writer serves it`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package tenants\n\ntenants: a: {domain: \"example.com\", dns: zones: \"example.com\": {provider: \"pdns\", records: {\n\t\t\t" +
				tc.records + "\n\t\t}" + tc.extra + "\n}}\n"
			var got []string
			o := Options{Warn: func(ds Diagnostics) {
				for _, d := range ds {
					got = append(got, d.Format(nil))
				}
			}}
			op, diags := operatorSource("site.cue", []byte(danglingSite))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			w := watch(o, "a.cue")
			defer w.stop()
			results, err := evaluate([]input{{path: "a.cue", data: []byte(src)}, {path: "b.cue", data: []byte(danglingOther)}}, w, o, nil)
			if err == nil {
				_, err = assemble(op, results, map[string]bool{"a.cue": true}, nil, o.Warn, w)
			}
			if err != nil {
				t.Fatalf("the spec does not load:\n%v\n%s", err, src)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got warnings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// danglingOther is another tenant's zone, loaded beside a.cue.
const danglingOther = `package tenants

tenants: b: {domain: "b.example.net", dns: zones: "b.example.net": {provider: "pdns", records: other: A: ["192.0.2.1"]}}
`

const danglingSite = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
hosts: h: uri: "test:///default"
tenants: a: {domains: ["example.com"], providers: ["pdns"], hosts: ["h"]}
tenants: b: {domains: ["b.example.net"], providers: ["pdns"]}
`

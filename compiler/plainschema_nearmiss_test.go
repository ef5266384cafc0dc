package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"
)

// nearMissBase is a valid plain tenant file that sets every field the
// schema has, so that each near miss below changes one thing in it.
const nearMissBase = `package tenants

tenants: t: {
	domain: "t.example.test"
	dns: zones: "t.example.test": {
		provider: "pdns"
		ttl:      300
		dnssec:   false
		soa: {primary: "ns1.t.example.test.", mbox: "hostmaster@t.example.test", refresh: 3600, retry: 600, expire: 86400, minimum: 300}
		ignore: [{name: "_acme-challenge", type: "TXT"}, {name: "@", value: "google-site-verification=*"}]
		records: {
			"@": {ttl: 60, NS: ["ns1.example.org."], MX: [{priority: 10, host: "mx.example.org."}]}
			"@": CAA: [{flags: 0, tag: "issue", value: "letsencrypt.org"}]
			www: {proxied: false, A: ["192.0.2.1"], AAAA: ["2001:db8::1"]}
			alias: CNAME: "www.t.example.test."
			txt: TXT: ["v=spf1 -all", ["part one", "part two"]]
			"_sip._tcp": SRV: [{priority: 10, weight: 5, port: 5060, target: "sip.t.example.test."}]
			"1.2": PTR: ["host.t.example.test."]
			ssh: SSHFP: [{algorithm: 4, type: 2, fingerprint: "abcdef"}]
			"_443._tcp": TLSA: [{usage: 3, selector: 1, matching_type: 1, certificate: "abcdef"}]
			svc: HTTPS: [{priority: 1, target: ".", params: "alpn=h2"}]
			svc2: SVCB: [{priority: 0, target: "svc.t.example.test."}]
			naptr: NAPTR: [{order: 100, preference: 10, flags: "U", service: "E2U+sip", regexp: "!^.*$!sip:a@b!", replacement: "."}]
			sub: DS: [{key_tag: 12345, algorithm: 13, digest_type: 2, digest: "abcdef"}]
			dn: DNAME: "other.example.org."
			pgp: OPENPGPKEY: ["AAAA"]
			dh: DHCID: ["AAAA"]
			al: ALIAS: "www.example.org."
			loc: LOC: ["52 22 23 N 4 53 32 E -2m"]
			"_u._tcp": URI: [{priority: 10, weight: 1, target: "https://x.example/"}]
			cert: CERT: [{type: 1, key_tag: 12, algorithm: 8, certificate: "AAAA"}]
			smime: SMIMEA: [{usage: 2, selector: 1, matching_type: 0, certificate: "abcd"}]
			hi: {HINFO: [{cpu: "INTEL", os: "Linux"}], RP: [{mbox: "a.example.org.", txt: "."}], ttls: {HINFO: 60}}
		}
	}
	dns: names: "www.hand.test": {provider: "pdns", ttl: 120, A: ["192.0.2.9"]}
	networks: lan: {host: "kvm1", mode: "nat", cidr: "10.0.0.0/24", autostart: true}
	networks: wan: {host: "kvm1", mode: "bridge", bridge: "br0", autostart: false}
	networks: iso: {host: "kvm1", mode: "isolated", cidr: "10.9.0.0/24", autostart: false}
	vms: web: {
		host: "kvm1", autostart: true, running: true, vcpus: 2, memory: "2GiB"
		disks: [{pool: "default", name: "web-root", size: "20GiB", base: "debian-12", clone: false}]
		nics: [{network: "lan", address: "10.0.0.2", mac: "52:54:00:00:00:01"}]
		cloudinit: {user_data: "#cloud-config", meta_data: "x", network_config: "y"}
		publish: {zone: "t.example.test", names: ["web"], address: "192.0.2.2", ptr: false}
	}
}
`

// nearMisses change one thing in nearMissBase each: old, unique in it,
// becomes new, a value CUE refuses, one per schema constraint.
var nearMisses = []struct{ name, old, new string }{
	{"domain missing", `domain: "t.example.test"` + "\n", ""},
	{"domain empty", `domain: "t.example.test"`, `domain: ""`},
	{"domain not a string", `domain: "t.example.test"`, `domain: 1`},
	{"unknown tenant field", `domain: "t.example.test"`, `domain: "t.example.test", owner: "x"`},
	{"dns unknown field", `dns: zones:`, `dns: zone:`},
	{"zones not a struct", `dns: zones: "t.example.test": {`, `dns: zones: [1], dns2: {`},
	{"provider missing", `provider: "pdns"` + "\n", ``},
	{"names provider missing", `provider: "pdns", ttl: 120`, `ttl: 120`},
	{"names provider bad", `provider: "pdns", ttl: 120`, `provider: "PDNS", ttl: 120`},
	{"names unknown field", `ttl: 120, A:`, `ttl: 120, zone: "x", A:`},
	{"names ttl zero", `ttl: 120`, `ttl: 0`},
	{"names not a struct", `dns: names: "www.hand.test": {`, `dns: names: "www.hand.test": [1], x: {`},
	{"provider bad regexp", `provider: "pdns"` + "\n", `provider: "PDNS"` + "\n"},
	{"provider leading dash", `provider: "pdns"` + "\n", `provider: "-pdns"` + "\n"},
	{"provider list empty", `provider: "pdns"` + "\n", `provider: []` + "\n"},
	{"provider list bad element", `provider: "pdns"` + "\n", `provider: ["pdns", "PDNS2"]` + "\n"},
	{"provider list of ints", `provider: "pdns"` + "\n", `provider: [1]` + "\n"},
	{"provider list nested", `provider: "pdns"` + "\n", `provider: [["pdns"]]` + "\n"},
	{"zone ttl zero", `ttl:      300`, `ttl: 0`},
	{"zone ttl too big", `ttl:      300`, `ttl: 2147483648`},
	{"zone ttl string", `ttl:      300`, `ttl: "300"`},
	{"dnssec string", `dnssec:   false`, `dnssec: "no"`},
	{"unknown zone field", `dnssec:   false`, `dnssec: false, serial: 1`},
	{"soa unknown field", `mbox: "hostmaster@t.example.test"`, `mname: "x"`},
	{"soa refresh zero", `refresh: 3600`, `refresh: 0`},
	{"soa mbox int", `mbox: "hostmaster@t.example.test"`, `mbox: 1`},
	{"soa primary int", `primary: "ns1.t.example.test."`, `primary: 1`},
	{"ignore name missing", `{name: "_acme-challenge", type: "TXT"}`, `{type: "TXT"}`},
	{"ignore unknown field", `type: "TXT"}`, `type: "TXT", why: "x"}`},
	{"ignore not a list", `ignore: [{name: "_acme-challenge", type: "TXT"}, {name: "@", value: "google-site-verification=*"}]`, `ignore: {name: "x"}`},
	{"ignore value int", `value: "google-site-verification=*"`, `value: 1`},
	{"name ttl zero", `ttl: 60`, `ttl: 0`},
	{"name proxied string", `proxied: false`, `proxied: "no"`},
	{"unknown record type", `dh: DHCID:`, `dh: DHCPID:`},
	{"lower-case type", `www: {proxied`, `www: {a: ["192.0.2.9"], proxied`},
	{"A not a list", `A: ["192.0.2.1"]`, `A: "192.0.2.1"`},
	{"A element int", `A: ["192.0.2.1"]`, `A: [1]`},
	{"AAAA element bool", `AAAA: ["2001:db8::1"]`, `AAAA: [true]`},
	{"CNAME list", `CNAME: "www.t.example.test."`, `CNAME: ["www.t.example.test."]`},
	{"TXT nested twice", `["part one", "part two"]`, `[["part one"]]`},
	{"TXT element int", `TXT: ["v=spf1 -all",`, `TXT: [1,`},
	{"MX priority too big", `priority: 10, host`, `priority: 65536, host`},
	{"MX host missing", `{priority: 10, host: "mx.example.org."}`, `{priority: 10}`},
	{"MX unknown field", `host: "mx.example.org."}`, `host: "mx.example.org.", weight: 1}`},
	{"SRV port too big", `port: 5060`, `port: 70000`},
	{"SRV weight missing", `weight: 5, `, ``},
	{"CAA flags too big", `flags: 0`, `flags: 256`},
	{"CAA tag missing", `tag: "issue", `, ``},
	{"NS element int", `NS: ["ns1.example.org."]`, `NS: [1]`},
	{"PTR not a list", `PTR: ["host.t.example.test."]`, `PTR: "host.t.example.test."`},
	{"SSHFP algorithm too big", `algorithm: 4`, `algorithm: 256`},
	{"SSHFP fingerprint missing", `, fingerprint: "abcdef"`, ``},
	{"TLSA usage string", `usage: 3`, `usage: "3"`},
	{"TLSA certificate missing", `, certificate: "abcdef"`, ``},
	{"HTTPS priority too big", `priority: 1, target: "."`, `priority: 65536, target: "."`},
	{"HTTPS target missing", `{priority: 1, target: ".", params: "alpn=h2"}`, `{priority: 1, params: "alpn=h2"}`},
	{"SVCB unknown field", `{priority: 0, target: "svc.t.example.test."}`, `{priority: 0, target: "svc.t.example.test.", port: 1}`},
	{"NAPTR order too big", `order: 100`, `order: 65536`},
	{"NAPTR replacement missing", `, replacement: "."`, ``},
	{"DS digest_type too big", `digest_type: 2`, `digest_type: 256`},
	{"DS key_tag missing", `key_tag: 12345, `, ``},
	{"DNAME list", `DNAME: "other.example.org."`, `DNAME: ["other.example.org."]`},
	{"OPENPGPKEY string", `OPENPGPKEY: ["AAAA"]`, `OPENPGPKEY: "AAAA"`},
	{"DHCID element bool", `DHCID: ["AAAA"]`, `DHCID: [false]`},
	{"ALIAS int", `ALIAS: "www.example.org."`, `ALIAS: 1`},
	{"LOC string", `LOC: ["52 22 23 N 4 53 32 E -2m"]`, `LOC: "52 22 23 N 4 53 32 E -2m"`},
	{"URI weight too big", `weight: 1, target: "https`, `weight: 65536, target: "https`},
	{"URI target missing", `, target: "https://x.example/"`, ``},
	{"CERT algorithm too big", `algorithm: 8, certificate`, `algorithm: 256, certificate`},
	{"CERT type string", `type: 1, key_tag: 12`, `type: "PKIX", key_tag: 12`},
	{"SMIMEA usage too big", `usage: 2, selector: 1, matching_type: 0`, `usage: 256, selector: 1, matching_type: 0`},
	{"HINFO os missing", `, os: "Linux"`, ``},
	{"RP unknown field", `txt: "."}`, `txt: ".", mail: "x"}`},
	{"ttls zero", `ttls: {HINFO: 60}`, `ttls: {HINFO: 0}`},
	{"ttls string", `ttls: {HINFO: 60}`, `ttls: {HINFO: "60"}`},
	{"ttls list", `ttls: {HINFO: 60}`, `ttls: [60]`},
	{"network host missing", `lan: {host: "kvm1", `, `lan: {`},
	{"network host bad regexp", `lan: {host: "kvm1"`, `lan: {host: "KVM 1"`},
	{"network cidr int", `cidr: "10.0.0.0/24"`, `cidr: 10`},
	{"network autostart missing", `cidr: "10.0.0.0/24", autostart: true}`, `cidr: "10.0.0.0/24"}`},
	{"network unknown field", `cidr: "10.0.0.0/24", autostart: true}`, `cidr: "10.0.0.0/24", autostart: true, dhcp: false}`},
	{"network mode unknown", `mode: "nat"`, `mode: "routed"`},
	{"network mode int", `mode: "nat"`, `mode: 1`},
	{"nat network without cidr", `mode: "nat", cidr: "10.0.0.0/24", `, `mode: "nat", `},
	{"default-mode network without cidr", `lan: {host: "kvm1", mode: "nat", cidr: "10.0.0.0/24", `, `lan: {host: "kvm1", `},
	{"isolated network without cidr", `mode: "isolated", cidr: "10.9.0.0/24", `, `mode: "isolated", `},
	{"bridge network without bridge", `mode: "bridge", bridge: "br0", `, `mode: "bridge", `},
	{"network bridge int", `bridge: "br0"`, `bridge: 0`},
	{"disk base empty", `base: "debian-12"`, `base: ""`},
	{"disk clone string", `clone: false`, `clone: "no"`},
	{"vm autostart missing", `autostart: true, running`, `running`},
	{"vm autostart string", `autostart: true, running`, `autostart: "yes", running`},
	{"vm host missing", `host: "kvm1", autostart: true, running`, `autostart: true, running`},
	{"vm running string", `running: true`, `running: "yes"`},
	{"vm vcpus zero", `vcpus: 2`, `vcpus: 0`},
	{"vm vcpus too many", `vcpus: 2`, `vcpus: 1025`},
	{"vm memory no unit", `memory: "2GiB"`, `memory: "2048"`},
	{"vm memory decimal unit", `memory: "2GiB"`, `memory: "2GB"`},
	{"vm unknown field", `memory: "2GiB"`, `memory: "2GiB", cpu: "host"`},
	{"disk pool empty", `pool: "default"`, `pool: ""`},
	{"disk name missing", `name: "web-root", `, ``},
	{"disk name empty", `name: "web-root"`, `name: ""`},
	{"disk size bad", `size: "20GiB"`, `size: "20 GiB"`},
	{"nic network empty", `network: "lan"`, `network: ""`},
	{"nic mac bad", `mac: "52:54:00:00:00:01"`, `mac: "52:54:00:00:00"`},
	{"nic address int", `address: "10.0.0.2"`, `address: 10`},
	{"cloudinit user_data missing", `user_data: "#cloud-config", `, ``},
	{"cloudinit unknown field", `network_config: "y"}`, `network_config: "y", vendor_data: "z"}`},
	{"publish names empty", `names: ["web"]`, `names: []`},
	{"publish names int", `names: ["web"]`, `names: [1]`},
	{"publish zone empty", `zone: "t.example.test", names`, `zone: "", names`},
	{"publish address missing", `, address: "192.0.2.2"`, ``},
	{"publish ptr string", `ptr: false`, `ptr: "no"`},
	{"tenants not a struct", "tenants: t: {\n\tdomain", "tenants: [1]\nx: {\n\tdomain"},
	{"bytes, not a string", `domain: "t.example.test"`, `domain: 't.example.test'`},
}

// TestPlainMirrorNearMisses changes one thing in nearMissBase per
// schema constraint, each a value CUE refuses: the mirror must refuse
// it too (or find the file not plain, which hands it to CUE as well).
func TestPlainMirrorNearMisses(t *testing.T) {
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	base, ok := judge(t, e, "base.cue", []byte(nearMissBase))
	if !ok || !base.mirror || len(base.errs) > 0 {
		t.Fatalf("the base must be plain and valid to both: ok %v, mirror %v, CUE %v", ok, base.mirror, base.errs)
	}
	base.sound(t)
	asked := 0
	for _, c := range nearMisses {
		t.Run(c.name, func(t *testing.T) {
			if n := strings.Count(nearMissBase, c.old); n != 1 {
				t.Fatalf("%q occurs %d times in the base; make it unique", c.old, n)
			}
			v, ok := judge(t, e, c.name, []byte(strings.Replace(nearMissBase, c.old, c.new, 1)))
			if !ok {
				return // stops before CUE: not the mirror's question
			}
			asked++
			if len(v.errs) == 0 {
				t.Fatal("CUE accepts this near miss: it tests nothing; make it one CUE refuses")
			}
			if v.mirror {
				t.Fatalf("the mirror accepts what CUE refuses: %s: %s", strings.Join(v.errs[0].path, "."), v.errs[0].msg)
			}
		})
	}
	// Only the bytes literal and the second top-level field stop before
	// the mirror is asked.
	if asked != len(nearMisses)-2 {
		t.Errorf("the mirror was asked about %d of %d near misses, want all but 2", asked, len(nearMisses))
	}
}

// TestPlainMirrorMutations walks every value of nearMissBase and tries
// the mutations no schema constraint may be missed by: each value
// replaced by one of each other kind and by edge values, each field
// removed, an unknown field added to each struct. Whatever CUE says of
// each, the mirror must agree when it accepts.
func TestPlainMirrorMutations(t *testing.T) {
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	refused, accepted := 0, 0
	for _, m := range mutations(parsePlain(t, nearMissBase)) {
		src := "package tenants\n\n" + strings.TrimPrefix(renderCUE(t, m.value), "{")
		src = strings.TrimSuffix(strings.TrimSpace(src), "}") + "\n"
		v, ok := judge(t, e, m.name, []byte(src))
		if !ok {
			continue // a second top-level field: not plain, CUE's to judge
		}
		t.Run(m.name, func(t *testing.T) { v.sound(t) })
		if len(v.errs) > 0 {
			refused++
		} else if v.mirror {
			accepted++
		}
	}
	if refused < 100 || accepted < 20 {
		t.Errorf("CUE refused %d mutations and the mirror accepted %d valid ones; the walk proves little", refused, accepted)
	}
}

func parsePlain(t *testing.T, src string) map[string]any {
	t.Helper()
	f, err := parser.ParseFile("base.cue", src)
	if err != nil {
		t.Fatal(err)
	}
	top, ok := plainData(f)
	if !ok {
		t.Fatal("not plain data")
	}
	return top
}

// renderCUE writes a plain value as CUE: JSON is CUE.
func renderCUE(t *testing.T, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type mutation struct {
	name  string
	value any // the whole file's top level, mutated once
}

// mutations returns every single mutation of root, found by walking it.
func mutations(root map[string]any) []mutation {
	var out []mutation
	var walk func(path []string, v any, set func(any))
	walk = func(path []string, v any, set func(any)) {
		at := strings.Join(path, ".")
		try := func(what string, nv any) {
			set(nv)
			out = append(out, mutation{at + " " + what, deepCopy(root)})
			set(v)
		}
		for _, alt := range []any{"x", "", int64(0), int64(256), int64(65536), int64(2147483648), true, []any{}, map[string]any{}} {
			if path != nil {
				try(fmt.Sprintf("= %#v", alt), alt)
			}
		}
		switch v := v.(type) {
		case map[string]any:
			v["zz_unknown"] = "x"
			out = append(out, mutation{at + " +zz_unknown", deepCopy(root)})
			delete(v, "zz_unknown")
			for _, k := range slices.Sorted(maps.Keys(v)) {
				x := v[k]
				delete(v, k)
				out = append(out, mutation{at + " -" + k, deepCopy(root)})
				v[k] = x
				walk(append(path, k), x, func(nv any) { v[k] = nv })
			}
		case []any:
			for i, x := range v {
				walk(append(path, fmt.Sprint(i)), x, func(nv any) { v[i] = nv })
			}
		}
	}
	walk(nil, root, func(any) {})
	return out
}

// deepCopy copies a plain value, so that a mutation outlives the walk.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

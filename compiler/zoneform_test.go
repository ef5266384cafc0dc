package compiler

import (
	"testing"

	"cuelang.org/go/cue"
)

// TestZoneFormOrder holds the schema's fields of every struct-valued
// record type to the order of the type's presentation form: the hint for
// a value written as a zone file writes it fills them word by word.
func TestZoneFormOrder(t *testing.T) {
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct{ value, want string }{
		"MX":     {"10 mx.example.", `{priority: 10, host: "mx.example."}`},
		"SRV":    {"10 60 5060 sip.example.", `{priority: 10, weight: 60, port: 5060, target: "sip.example."}`},
		"CAA":    {`0 issue "ca.example"`, `{flags: 0, tag: "issue", value: "ca.example"}`},
		"SSHFP":  {"1 2 abcd", `{algorithm: 1, type: 2, fingerprint: "abcd"}`},
		"TLSA":   {"3 1 1 abcd", `{usage: 3, selector: 1, matching_type: 1, certificate: "abcd"}`},
		"HTTPS":  {"1 . alpn=h2 port=443", `{priority: 1, target: ".", params: "alpn=h2 port=443"}`},
		"SVCB":   {"0 svc.example.", `{priority: 0, target: "svc.example."}`},
		"NAPTR":  {`100 10 "S" "SIP+D2U" "" _sip._udp.example.`, `{order: 100, preference: 10, flags: "S", service: "SIP+D2U", regexp: "", replacement: "_sip._udp.example."}`},
		"DS":     {"12345 13 2 abcd", `{key_tag: 12345, algorithm: 13, digest_type: 2, digest: "abcd"}`},
		"URI":    {`10 1 "https://x.example/"`, `{priority: 10, weight: 1, target: "https://x.example/"}`},
		"CERT":   {"1 12 8 MIIBIjAN", `{type: 1, key_tag: 12, algorithm: 8, certificate: "MIIBIjAN"}`},
		"SMIMEA": {"3 1 1 abcd", `{usage: 3, selector: 1, matching_type: 1, certificate: "abcd"}`},
		"HINFO":  {`"INTEL" "LINUX"`, `{cpu: "INTEL", os: "LINUX"}`},
		"RP":     {"admin.example. .", `{mbox: "admin.example.", txt: "."}`},
	}
	name := []string{"tenants", "a", "dns", "zones", "example.com", "records", "www"}
	it, err := schemaAt(e.schema, name).Fields(cue.Optional(true))
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		typ := it.Selector().Unquoted()
		fields := structFields(e.schema, append(name[:len(name):len(name)], typ, "0"))
		if fields == nil {
			continue // not a list of structs
		}
		tc, ok := cases[typ]
		if !ok {
			t.Errorf("%s: the schema writes it as a struct; add a case here", typ)
			continue
		}
		delete(cases, typ)
		if got, ok := fillStruct(tc.value, fields); !ok || got != tc.want {
			t.Errorf("%s %q: got %q (%v), want %q", typ, tc.value, got, ok, tc.want)
		}
	}
	for typ := range cases {
		t.Errorf("%s: not a struct-valued type of the schema", typ)
	}
}

// TestFillStruct refuses the words that do not fit the fields.
func TestFillStruct(t *testing.T) {
	mx := []structField{{name: "priority", integer: true}, {name: "host"}}
	svcb := []structField{{name: "priority", integer: true}, {name: "target"}, {name: "params", optional: true}}
	for _, tc := range []struct {
		s      string
		fields []structField
		want   string
	}{
		{"10 mx.example.", mx, `{priority: 10, host: "mx.example."}`},
		{"mx.example.", mx, ""},      // a field missing
		{"ten mx.example.", mx, ""},  // not a number
		{"-1 mx.example.", mx, ""},   // not a number DNS has
		{"10 mx.example. x", mx, ""}, // a word too many
		{`10 "mx.example.`, mx, ""},  // a quote not closed
		{"", mx, ""},
		{"1 . alpn=h2", svcb, `{priority: 1, target: ".", params: "alpn=h2"}`},
		{"1 . alpn=h2 port=443", svcb, `{priority: 1, target: ".", params: "alpn=h2 port=443"}`},
		{"1 .", svcb, `{priority: 1, target: "."}`},
		{"1", svcb, ""},
	} {
		got, ok := fillStruct(tc.s, tc.fields)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("fillStruct(%q): got %q (%v), want %q", tc.s, got, ok, tc.want)
		}
	}
}

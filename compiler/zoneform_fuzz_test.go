package compiler

import (
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue"
)

// FuzzZoneForm writes an arbitrary string where a struct-valued record
// type goes, as one value and as the list, the way a tenant's
// "10 mx.example." reaches zoneFileForm. Its message is one line, and
// the struct it says to write instead, the language's form, is one the
// schema accepts.
func FuzzZoneForm(f *testing.F) {
	e, err := newEvaluator(nil)
	if err != nil {
		f.Fatal(err)
	}
	name := []string{"tenants", "a", "dns", "zones", "example.com", "records", "www"}
	it, err := schemaAt(e.schema, name).Fields(cue.Optional(true))
	if err != nil {
		f.Fatal(err)
	}
	var types []string
	for it.Next() {
		typ := it.Selector().Unquoted()
		if structFields(e.schema, append(name[:len(name):len(name)], typ, "0")) != nil {
			types = append(types, typ)
		}
	}
	for _, s := range []string{
		"10 mx.example.", "10 60 5060 sip.example.", `0 issue "ca.example"`, "1 2 abcd", "3 1 1 abcd",
		"1 . alpn=h2 port=443", "0 svc.example.", `100 10 "S" "SIP+D2U" "" _sip._udp.example.`,
		"12345 13 2 abcd", "ten mx.example.", "-1 mx.example.", `10 "mx.example.`, "",
	} {
		for i := range types {
			f.Add(uint8(i), false, s)
			f.Add(uint8(i), true, s)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, list bool, s string) {
		typ := types[int(i)%len(types)]
		path := append(name[:len(name):len(name)], typ)
		want := "[...{}]"
		if !list {
			path, want = append(path, "0"), "{}"
		}
		kind := map[bool]string{false: "struct", true: "list"}[list]
		msg := "conflicting values " + strconv.Quote(s) + " and " + want + " (mismatched types string and " + kind + ")"
		plain, ok := zoneFileForm(msg, path, e.schema)
		if !ok {
			t.Fatalf("zoneFileForm(%q) at %s: no message", msg, strings.Join(path, "."))
		}
		checkLines(t, Diagnostics{{Path: cuePath(path...), Msg: plain}}.elided(), len(msg))
		_, lit, claims := strings.Cut(plain, ", the zone-file form, want ")
		if !claims {
			return
		}
		_, lit, _ = strings.Cut(lit, ": write ")
		v := e.ctx.CompileString(lit)
		if err := schemaAt(e.schema, path).Unify(v).Validate(cue.Concrete(true)); err != nil {
			t.Fatalf("%s %q: suggests %s, which the schema refuses: %v", typ, s, lit, err)
		}
	})
}

package compiler

import (
	"strings"
	"testing"
)

// FuzzTopField reads fields out of arbitrary text as if CUE had printed
// it: a tenant's values reach the message CUE prints, so topField must
// not panic, and what it returns is a piece of s, never more.
func FuzzTopField(f *testing.F) {
	for _, s := range []string{
		`{ttl:60,values:["192.0.2.1","192.0.2.2"]}`,
		`{values:["a,b}","c\"]"]}`,
		`{value:"ns1.example.net."}`,
		`{x:{ttl:5},y:1}`,
		`{note:"ttl:5",y:1}`,
		`{ttl:"\`, `}}]]{ttl:`, `{ttl:`,
	} {
		for _, field := range []string{"ttl", "values", "value"} {
			f.Add(s, field)
		}
	}
	f.Fuzz(func(t *testing.T, s, field string) {
		if got := topField(s, field); !strings.Contains(s, got) {
			t.Fatalf("topField(%q, %q) = %q, not a piece of it", s, field, got)
		}
		if got := valueAt(s); !strings.HasPrefix(s, got) {
			t.Fatalf("valueAt(%q) = %q, not its start", s, got)
		}
	})
}

// FuzzFromCUE feeds fromCUE what CUE could report for a tenant's file:
// an arbitrary message at an arbitrary path ("/" between its labels),
// both of which quote what the tenant wrote. Whatever it makes of them
// must not panic, must be one line once formatted, and, elided as
// assemble elides it, no more than a few times the size of its input.
func FuzzFromCUE(f *testing.F) {
	e, err := newEvaluator(nil)
	if err != nil {
		f.Fatal(err)
	}
	rec := "tenants/a/dns/zones/example.com/records/www/"
	for _, tc := range [][2]string{
		{`conflicting values "10 mx.example." and {priority!:#U16,host!:string} (mismatched types string and struct)`, rec + "MX/0"},
		{`conflicting values [...{priority!:#U16,host!:string}] and "10 mx.example." (mismatched types list and string)`, rec + "MX"},
		{`conflicting values "0 issue \"ca.example\"" and {flags:*0|(int&>=0&<=255),tag!:string,value!:string} (mismatched types string and struct)`, rec + "CAA/0"},
		{`conflicting values [...string] and {ttl:60,values:["192.0.2.1"]} (mismatched types list and struct)`, rec + "A"},
		{`conflicting values {ttl:60,value:"192.0.2.1"} and [...string] (mismatched types struct and list)`, rec + "A"},
		{`conflicting values "192.0.2.1" and [...string] (mismatched types string and list)`, rec + "A"},
		{`conflicting values 2048 and =~"^[0-9]+(KiB|MiB|GiB|TiB)$" (mismatched types int and string)`, "tenants/a/vms/web/memory"},
		{`conflicting values ["a"] and string (mismatched types list and string)`, "tenants/a/domain"},
		{`conflicting values 300 and 0`, rec + "ttl"},
		{`conflicting values "a" and "b"`, "tenants/a/domain"},
		{`incompatible list lengths (1 and 2)`, rec + "A"},
		{`invalid value 0 (out of bound >=1)`, rec + "ttl"},
		{`invalid value 70000 (out of bound <=65535)`, rec + "MX/0/priority"},
		{`invalid value 0 (out of bound >=1)`, ""},
		{`invalid value "http://x" (out of bound =~"^[a-z0-9][a-z0-9_-]*$")`, "tenants/a/dns/zones/example.com/provider"},
		{`invalid value "Web" (out of bound =~"^[a-z0-9][a-z0-9_-]*$")`, "tenants/a/vms/Web/name"},
		{`field not allowed`, rec + "mx"},
		{`field not allowed`, rec + "TLL"},
		{`field not allowed`, rec + "colour"},
		{`field not allowed`, "tenants/a/vms/web/memroy"},
		{`field not allowed`, ""},
		{`field not allowed`, "providers/p/powerdns/api_key/env"},
		{`conflicting values "s3cret" and {env!:string} (mismatched types string and struct)`, "providers/p/powerdns/api_key"},
		{`conflicting values "x" and "y"`, "tenants/a/networks/n/mode"},
		{`field is required but not present`, "tenants/a/vms/web/autostart"},
		{`field is required but not present`, "tenants/a/networks/n/cidr"},
		{`field is required but not present`, ""},
		{`2 errors in empty disjunction:`, rec + "A"},
	} {
		f.Add(tc[0], tc[1])
	}
	f.Fuzz(func(t *testing.T, msg, path string) {
		var labels []string
		if path != "" {
			labels = strings.Split(path, "/")
		}
		pos := &positions{file: "fuzz.cue", at: map[string]lineCol{}}
		diags := fromCUE([]cueError{{path: labels, msg: msg}}, pos, e.schema).elided()
		checkLines(t, diags, len(msg)+len(path))
	})
}

// checkLines fails t unless every diagnostic of ds is one line of
// visible characters, and ds, elided, is at most a few times in,
// the size of the text that made them. Visible may write a byte as
// four ("\x00"), so the line is bounded by the elided text.
func checkLines(t *testing.T, ds Diagnostics, in int) {
	t.Helper()
	for _, d := range ds {
		line := d.Error()
		if Visible(line) != line {
			t.Fatalf("diagnostic is not visible text: %q", line)
		}
		if n := len(d.Path) + len(d.Msg); n > 4*in+2*maxRun {
			t.Fatalf("diagnostic of %d bytes from %d bytes of input: %.300q", n, in, line)
		}
	}
}

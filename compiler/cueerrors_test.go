package compiler

import "testing"

// TestTopField reads a field of a struct as CUE prints it in a message,
// only at the struct's top, with commas and braces inside strings and
// lists left alone.
func TestTopField(t *testing.T) {
	for _, tc := range []struct {
		s, field, want string
	}{
		{`{ttl:60,values:["192.0.2.1","192.0.2.2"]}`, "values", `["192.0.2.1","192.0.2.2"]`},
		{`{ttl:60,values:["192.0.2.1"]}`, "ttl", "60"},
		{`{values:["a,b}","c\"]"]}`, "values", `["a,b}","c\"]"]`},
		{`{value:"ns1.example.net."}`, "value", `"ns1.example.net."`},
		{`{value:"ns1.example.net."}`, "values", ""},
		{`{x:{ttl:5},y:1}`, "ttl", ""},
		{`{note:"ttl:5",y:1}`, "ttl", ""},
	} {
		if got := topField(tc.s, tc.field); got != tc.want {
			t.Errorf("topField(%q, %q): got %q, want %q", tc.s, tc.field, got, tc.want)
		}
	}
}

package compiler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/site-tools/site/compiler/rdata"
	"github.com/site-tools/site/compiler/spelling"
)

// This file rewrites CUE's error messages in words a user reads: what
// kind of value a field wants, what a pattern means, which numbers a
// bound allows, which fields a struct takes.

// notAllowed says that field is not one of those the schema allows
// beside it, fields, and which of them it most likely meant, or which
// there are when it comes near none.
func notAllowed(field string, fields []string) string {
	if near := spelling.Nearest(field, fields); near != "" {
		return "field not allowed: did you mean " + near + "?"
	}
	if len(fields) == 0 {
		return "field not allowed"
	}
	return "field not allowed: the fields here are " + strings.Join(fields, ", ")
}

var (
	conflict     = regexp.MustCompile(`^conflicting values (.+?) and (.+?)( \(mismatched types .*\))?$`)
	typeMismatch = regexp.MustCompile(`^conflicting values (.+) and (.+) \(mismatched types (\w+) and (\w+)\)$`)
	literalValue = regexp.MustCompile(`^(-?[0-9.]+|".*"|true|false|null)$`)
	listLengths  = regexp.MustCompile(`^incompatible list lengths \(([0-9]+) and ([0-9]+)\)$`)
)

// kindWords says in words what a schema kind wants.
var kindWords = map[string]string{
	"string": "a string", "int": "a whole number", "number": "a number", "float": "a number",
	"bool": "true or false", "bytes": "bytes", "list": "a list", "struct": "a struct {...}",
}

// wrongKind rewrites CUE's "conflicting values A and B (mismatched types
// K and L)" as "got X, want Y": CUE names both sides in either order and
// prints the schema's side as a type ([...string], {host!: string},
// int), which a user reads as noise. It says which side was written and
// what the schema wants, and for a lone value where a list goes, how to
// write it. ok is false when neither side is clearly the schema's. path
// is where the value was written.
func wrongKind(msg string, path []string) (plain string, ok bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	isSchema := func(v string) bool {
		return strings.HasPrefix(v, "[...") || strings.HasPrefix(v, "#") || (kindWords[v] != "" && v != "list" && v != "struct") ||
			strings.HasPrefix(v, "{") && (strings.Contains(v, "!:") || strings.Contains(v, "?:") || strings.Contains(v, "...") ||
				strings.Contains(v, "#") || strings.Contains(v, "[string]"))
	}
	var got, kind, schema string
	switch {
	case isSchema(m[1]) && !isSchema(m[2]):
		got, kind, schema = m[2], m[3], m[1]
	case isSchema(m[2]) && !isSchema(m[1]):
		got, kind, schema = m[1], m[4], m[2]
	default:
		return "", false
	}
	want := kindWords[kind]
	if want == "" {
		want = "a " + kind
	}
	switch {
	case kind == "list" && strings.HasPrefix(got, "{") && !strings.HasPrefix(schema, "[...{") && !strings.HasPrefix(schema, "[...#"):
		// A struct where a list of values goes: in a list it would
		// still be a struct. Most likely a record as other tools write
		// one, {ttl, values}.
		return structForValues(got, path), true
	case kind == "list":
		return fmt.Sprintf("got %s, want %s: write [%s]", got, want, got), true
	case strings.HasPrefix(got, "[") && kind != "struct":
		return fmt.Sprintf("got the list %s, want %s (one value, not a list)", got, want), true
	}
	return fmt.Sprintf("got %s, want %s", got, want), true
}

// notPatterned rewrites CUE's "conflicting values 2048 and =~"..."
// (mismatched types int and string)", a value that is no string where
// the schema wants a string of a pattern, as what the pattern wants in
// words (patternWords): a memory of 2048 is told to write "2GiB", not
// shown the regular expression.
func notPatterned(msg string) (plain string, ok bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	got, re := m[1], m[2]
	if strings.HasPrefix(got, "=~") {
		got, re = re, got
	}
	want := patternWords[strings.TrimPrefix(re, "=~")]
	if want == "" || !strings.HasPrefix(re, "=~") || !literalValue.MatchString(got) {
		return "", false
	}
	if _, err := strconv.ParseFloat(got, 64); err == nil {
		return fmt.Sprintf("got the bare number %s, want %s", got, want), true
	}
	return fmt.Sprintf("got %s, want %s", got, want), true
}

// structForValues says how to write the struct got, written at path
// where a list of values goes. For a record type written as octoDNS and
// DNSControl write a record ({ttl: 60, values: [...]}, or value: "..."),
// it spells the language's form out: the values as the type's list, the
// ttl beside the name's types.
func structForValues(got string, path []string) string {
	msg := fmt.Sprintf("got %s, want a list of values, not a struct", got)
	if len(path) < 3 || path[len(path)-3] != "records" || !rdata.IsType(path[len(path)-1]) {
		return msg
	}
	name, typ := path[len(path)-2], path[len(path)-1]
	values := topField(got, "values")
	if v := topField(got, "value"); values == "" && v != "" {
		values = "[" + v + "]"
	}
	if values == "" {
		values = "[...]"
	}
	msg += fmt.Sprintf(": write %s: %s", typ, values)
	if ttl := topField(got, "ttl"); ttl != "" {
		msg += fmt.Sprintf(", and the ttl beside the name's types: %s: {ttl: %s, %s: [...]}", cueLabel(name), ttl, typ)
	}
	return msg
}

// outOfBound matches CUE's message for a number past a bound of the
// schema, "invalid value 0 (out of bound >=1)"; schemaBound finds the
// bounds in the schema as CUE prints it ("uint & >=1 & <=2147483647",
// "*0 | uint8").
var (
	outOfBound  = regexp.MustCompile(`^invalid value (-?[0-9.]+) \(out of bound [<>]=?-?[0-9.]+\)$`)
	schemaBound = regexp.MustCompile(`(>=|<=|\buint(?:8|16|32)?\b)(-?[0-9]*)`)
)

// outOfRange says in words which whole numbers the schema allows at
// path, where got is not one of them: "ttl 0 is out of range; use 1 to
// 2147483647 seconds" rather than CUE's "(out of bound >=1)", which
// gives one bound, as a comparison. ok is false
// where the schema's bounds are not found.
func outOfRange(got string, path []string, schema cue.Value) (plain string, ok bool) {
	v := schemaAt(schema, path)
	if !v.Exists() {
		return "", false
	}
	lo, hi := "", ""
	for _, m := range schemaBound.FindAllStringSubmatch(fmt.Sprint(v), -1) {
		switch m[1] {
		case ">=":
			lo = m[2]
		case "<=":
			hi = m[2]
		case "uint8":
			lo, hi = "0", "255"
		case "uint16":
			lo, hi = "0", "65535"
		case "uint32":
			lo, hi = "0", "4294967295"
		case "uint":
			if lo == "" {
				lo = "0"
			}
		}
	}
	last := path[len(path)-1]
	unit := ""
	if last == "ttl" || len(path) >= 2 && path[len(path)-2] == "soa" {
		unit = " seconds"
	}
	switch {
	case lo != "" && hi != "":
		return fmt.Sprintf("%s %s is out of range; use %s to %s%s", last, got, lo, hi, unit), true
	case lo != "":
		return fmt.Sprintf("%s %s is out of range; use %s%s or more", last, got, lo, unit), true
	case hi != "":
		return fmt.Sprintf("%s %s is out of range; use at most %s%s", last, got, hi, unit), true
	}
	return "", false
}

// patternMismatch matches CUE's message for a string that fails a
// schema regex; patternWords says in words what each regex of the
// schema wants.
var (
	patternMismatch = regexp.MustCompile(`^invalid value (".*") \(out of bound =~(".*")\)$`)
	patternWords    = map[string]string{
		`"^https?://[^ ]+$"`:                     "an http:// or https:// URL",
		`"^[a-z0-9][a-z0-9_-]*$"`:                "a name: lower case letters, digits, '_' and '-'",
		`"^[A-Za-z_][A-Za-z0-9_]*$"`:             "an environment variable name: letters, digits and _, not starting with a digit",
		`"^[0-9]+(KiB|MiB|GiB|TiB)$"`:            `a size with a binary unit, like "512MiB" or "2GiB"`,
		`"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$"`: `a MAC address like "52:54:00:12:34:56"`,
		`"^[a-z0-9][a-z0-9_-]*/[^/:\\s]{1,15}$"`: `a host and one of its bridges, "HOST/BRIDGE" like "kvm1/br0" (a bridge is a Linux interface name: 1 to 15 bytes, not "." or "..", none of them '/', ':' or white space)`,
	}
)

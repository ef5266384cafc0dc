package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

	"github.com/site-tools/site/compiler/rdata"
)

// A record of a struct-valued type (MX, SRV, CAA, SSHFP, TLSA, DS, ...)
// written as a zone file writes it, MX: ["10 mx.example."], is told the
// language's struct filled from the string. The struct's fields, their
// kinds and their order come from the schema, whose fields are in the
// order of the type's presentation form (TestZoneFormOrder holds it to
// rdata's parsers): the schema is the one table.

// structField is one field of a struct-valued record type.
type structField struct {
	name     string
	integer  bool
	optional bool
}

// zoneFileForm rewrites CUE's "conflicting values "10 mx.example." and
// {priority!:#U16,host!:string} (mismatched types string and struct)",
// for a string at path where a record type's struct (or a list of them)
// goes. ok is false for any other error.
func zoneFileForm(msg string, path []string, schema cue.Value) (plain string, ok bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	got := m[1]
	if m[3] != "string" {
		got = m[2]
	}
	if !strings.HasPrefix(got, `"`) || (m[3] != "string" && m[4] != "string") {
		return "", false
	}
	elem, list := path, false
	switch n := len(path); {
	case n >= 4 && path[n-4] == "records" && rdata.IsType(path[n-2]) && isIndex(path[n-1]):
	case n >= 3 && path[n-3] == "records" && rdata.IsType(path[n-1]):
		elem, list = append(path[:n:n], "0"), true
	default:
		return "", false
	}
	fields := structFields(schema, elem)
	if len(fields) == 0 {
		return "", false
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	want := "a struct {" + strings.Join(names, ", ") + "}"
	if list {
		want = "a list of structs {" + strings.Join(names, ", ") + "}"
	}
	s, err := strconv.Unquote(got)
	if err != nil {
		return fmt.Sprintf("got %s, want %s", got, want), true
	}
	lit, filled := fillStruct(s, fields)
	if list {
		lit = "[" + lit + "]"
	}
	if !filled || !accepts(schema, path, lit) {
		return fmt.Sprintf("got %s, want %s", got, want), true
	}
	return fmt.Sprintf("got %s, the zone-file form, want %s: write %s", got, want, lit), true
}

// fillStruct writes s, a value in presentation form, as a struct of
// fields, word by word in order; words beyond the fields go, space
// separated, to the last if it is an optional string (SVCB's params),
// and fields left over must be optional. ok is false where the words do not fit.
func fillStruct(s string, fields []structField) (lit string, ok bool) {
	words, err := rdata.Words(s)
	if err != nil || len(words) == 0 {
		return "", false
	}
	if len(words) > len(fields) {
		if last := fields[len(fields)-1]; last.integer || !last.optional {
			return "", false
		}
		words = append(words[:len(fields)-1], strings.Join(words[len(fields)-1:], " "))
	}
	for _, f := range fields[len(words):] {
		if !f.optional {
			return "", false
		}
	}
	parts := make([]string, len(words))
	for i, w := range words {
		f := fields[i]
		if !f.integer {
			parts[i] = f.name + ": " + strconv.Quote(w)
			continue
		}
		if _, err := strconv.ParseUint(w, 10, 32); err != nil {
			return "", false
		}
		parts[i] = f.name + ": " + w
	}
	return "{" + strings.Join(parts, ", ") + "}", true
}

// accepts reports whether the schema takes lit, CUE source, at path.
// The words fill the fields by kind alone: "70000 mx.example." has a
// number where MX wants one of 16 bits, and a string of invalid UTF-8
// quotes as no CUE string can. Either would be a hint to write what vet
// refuses.
func accepts(schema cue.Value, path []string, lit string) bool {
	v := schema.Context().CompileString(lit)
	return v.Err() == nil && schemaAt(schema, path).Unify(v).Validate(cue.Concrete(true)) == nil
}

// structFields lists the fields of the struct the schema wants at path,
// in the schema's order; nil where it wants no struct.
func structFields(schema cue.Value, path []string) []structField {
	v := schemaAt(schema, path)
	if !v.Exists() || v.IncompleteKind() != cue.StructKind {
		return nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var out []structField
	for it.Next() {
		out = append(out, structField{
			name:     it.Selector().Unquoted(),
			integer:  it.Value().IncompleteKind() == cue.IntKind,
			optional: it.IsOptional(),
		})
	}
	return out
}

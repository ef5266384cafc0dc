package rdata

import (
	"fmt"
	"math"
)

// Field is one field of a record value the language writes as a struct,
// named as the language (schema/dns.cue) names it.
type Field struct {
	Name string
	Int  bool // an integer; else a string
}

// structFields lists, for each type whose values are structs in the
// language and whose fields this file maps generically, the fields in
// presentation order. The compiler reads them, export writes them and
// the Cloudflare backend maps them onto its `data`, all from this table.
var structFields = map[string][]Field{
	"SSHFP": {{"algorithm", true}, {"type", true}, {"fingerprint", false}},
	"TLSA":  {{"usage", true}, {"selector", true}, {"matching_type", true}, {"certificate", false}},
	"HTTPS": {{"priority", true}, {"target", false}, {"params", false}},
	"SVCB":  {{"priority", true}, {"target", false}, {"params", false}},
	"NAPTR": {{"order", true}, {"preference", true}, {"flags", false}, {"service", false}, {"regexp", false}, {"replacement", false}},
	"DS":    {{"key_tag", true}, {"algorithm", true}, {"digest_type", true}, {"digest", false}},
	"URI":   {{"priority", true}, {"weight", true}, {"target", false}},
	"CERT":  {{"type", true}, {"key_tag", true}, {"algorithm", true}, {"certificate", false}},
	// SMIMEA has TLSA's fields (RFC 8162 §2).
	"SMIMEA": {{"usage", true}, {"selector", true}, {"matching_type", true}, {"certificate", false}},
	"HINFO":  {{"cpu", false}, {"os", false}},
	"RP":     {{"mbox", false}, {"txt", false}},
}

// OptionalField reports whether the language lets a struct type's
// string field be left out (as "" it is then): only the SvcParams of
// HTTPS and SVCB. Export writes every other field, even empty.
func OptionalField(typ, field string) bool {
	return (typ == "HTTPS" || typ == "SVCB") && field == "params"
}

// StructFields returns the fields of typ's values when the language
// writes them as structs mapped by this package, else nil.
func StructFields(typ string) []Field { return structFields[typ] }

// FromFields builds the canonical value of typ from its fields. Integers
// may be int, int64 (CUE's decoding) or integral float64 (JSON's); a
// missing string is "", a missing integer an error.
func FromFields(typ string, f map[string]any) (string, error) {
	fields := structFields[typ]
	if fields == nil {
		return "", fmt.Errorf("record type %s has no struct form", typ)
	}
	n := make([]int, 0, len(fields))
	s := make([]string, 0, len(fields))
	for _, fd := range fields {
		if !fd.Int {
			v, _ := f[fd.Name].(string)
			s = append(s, v)
			continue
		}
		v, ok := integer(f[fd.Name])
		if !ok {
			return "", fmt.Errorf("%s %s %v is not an integer; write a number", typ, fd.Name, f[fd.Name])
		}
		n = append(n, v)
	}
	switch typ {
	case "SSHFP":
		return SSHFP(n[0], n[1], s[0])
	case "TLSA":
		return TLSA(n[0], n[1], n[2], s[0])
	case "HTTPS", "SVCB":
		return SVCB(typ, n[0], s[0], s[1])
	case "NAPTR":
		return NAPTR(n[0], n[1], s[0], s[1], s[2], s[3])
	case "URI":
		return URI(n[0], n[1], s[0])
	case "CERT":
		return CERT(n[0], n[1], n[2], s[0])
	case "SMIMEA":
		return SMIMEA(n[0], n[1], n[2], s[0])
	case "HINFO":
		return HINFO(s[0], s[1])
	case "RP":
		return RP(s[0], s[1])
	}
	return DS(n[0], n[1], n[2], s[0]) // the last struct type
}

// ToFields is FromFields's inverse: the fields of a value in
// presentation form, integers as int.
func ToFields(typ, value string) (map[string]any, error) {
	var vals []any
	switch typ {
	case "SSHFP":
		a, t, fp, err := ParseSSHFP(value)
		if err != nil {
			return nil, err
		}
		vals = []any{a, t, fp}
	case "TLSA":
		u, s, m, c, err := ParseTLSA(value)
		if err != nil {
			return nil, err
		}
		vals = []any{u, s, m, c}
	case "HTTPS", "SVCB":
		p, t, params, err := ParseSVCB(typ, value)
		if err != nil {
			return nil, err
		}
		vals = []any{p, t, params}
	case "NAPTR":
		o, p, fl, svc, re, repl, err := ParseNAPTR(value)
		if err != nil {
			return nil, err
		}
		vals = []any{o, p, fl, svc, re, repl}
	case "DS":
		k, a, d, dg, err := ParseDS(value)
		if err != nil {
			return nil, err
		}
		vals = []any{k, a, d, dg}
	default:
		return moreToFields(typ, value)
	}
	return fieldMap(typ, vals), nil
}

// moreToFields is ToFields for the types of issue 28 (URI, CERT,
// SMIMEA, HINFO, RP).
func moreToFields(typ, value string) (map[string]any, error) {
	var vals []any
	switch typ {
	case "URI":
		p, w, t, err := ParseURI(value)
		if err != nil {
			return nil, err
		}
		vals = []any{p, w, t}
	case "CERT":
		t, k, a, c, err := ParseCERT(value)
		if err != nil {
			return nil, err
		}
		vals = []any{t, k, a, c}
	case "SMIMEA":
		u, s, m, c, err := ParseSMIMEA(value)
		if err != nil {
			return nil, err
		}
		vals = []any{u, s, m, c}
	case "HINFO":
		c, o, err := ParseHINFO(value)
		if err != nil {
			return nil, err
		}
		vals = []any{c, o}
	case "RP":
		m, t, err := ParseRP(value)
		if err != nil {
			return nil, err
		}
		vals = []any{m, t}
	default:
		return nil, fmt.Errorf("record type %s has no struct form", typ)
	}
	return fieldMap(typ, vals), nil
}

// fieldMap names vals by typ's fields, in order.
func fieldMap(typ string, vals []any) map[string]any {
	out := make(map[string]any, len(vals))
	for i, fd := range structFields[typ] {
		out[fd.Name] = vals[i]
	}
	return out
}

func integer(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), true
		}
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt32 && n <= math.MaxInt32 {
			return int(n), true
		}
	}
	return 0, false
}

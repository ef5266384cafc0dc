package compiler

import (
	"regexp"
	"slices"
)

// A shape says whether a plain value (as plainData gives it: string,
// int64, bool, []any, map[string]any) is one the schema accepts. The
// shapes are built to answer "no" whenever in doubt: a value they
// refuse is evaluated by CUE, which then has the final word and says
// what is wrong; a value they accept is never shown to CUE
// (plainschema.go), so every shape must be at least as strict as the
// CUE constraint it mirrors.
type shape func(v any) bool

func isString(v any) bool { _, ok := v.(string); return ok }

func isBool(v any) bool { _, ok := v.(bool); return ok }

// nonEmpty is string & !="".
func nonEmpty(v any) bool { s, ok := v.(string); return ok && s != "" }

// matching is =~re. CUE matches with Go's regexp (RE2) too, unanchored
// as MatchString is.
func matching(re string) shape {
	r := regexp.MustCompile(re)
	return func(v any) bool {
		s, ok := v.(string)
		return ok && r.MatchString(s)
	}
}

// intIn is int & >=lo & <=hi.
func intIn(lo, hi int64) shape {
	return func(v any) bool {
		n, ok := v.(int64)
		return ok && n >= lo && n <= hi
	}
}

// listOf is [...elem], or [elem, ...elem] for min 1.
func listOf(elem shape, min int) shape {
	return func(v any) bool {
		l, ok := v.([]any)
		if !ok || len(l) < min {
			return false
		}
		for _, x := range l {
			if !elem(x) {
				return false
			}
		}
		return true
	}
}

// mapOf is [string]: elem, any key allowed.
func mapOf(elem shape) shape {
	return func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, x := range m {
			if !elem(x) {
				return false
			}
		}
		return true
	}
}

// oneOf is "a" | "b" | ..., strings only.
func oneOf(values ...string) shape {
	return func(v any) bool {
		s, ok := v.(string)
		return ok && slices.Contains(values, s)
	}
}

// either is a | b.
func either(a, b shape) shape { return func(v any) bool { return a(v) || b(v) } }

// field is one field of a closed struct: name!: s (required) or
// name?: s. A field with a default (name: *d | s) is optional in the
// data, and fillDefaults gives it the default.
type field struct {
	name     string
	required bool
	shape    shape
}

func req(name string, s shape) field { return field{name, true, s} }
func opt(name string, s shape) field { return field{name, false, s} }

// closed is a closed struct of fields (a definition's struct, and every
// struct inside one): any other field is refused.
func closed(fields ...field) shape {
	byName := make(map[string]field, len(fields))
	for _, f := range fields {
		byName[f.name] = f
	}
	return func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range m {
			f, ok := byName[k]
			if !ok || !f.shape(x) {
				return false
			}
		}
		for _, f := range fields {
			if _, ok := m[f.name]; f.required && !ok {
				return false
			}
		}
		return true
	}
}

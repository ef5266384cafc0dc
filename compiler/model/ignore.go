package model

import (
	"path"
	"strings"
)

// IgnoreRule is one entry of a zone's ignore list: live RRsets it
// matches are left to whoever wrote them. site neither adopts, changes
// nor deletes them, and they do not count toward delete gates. A rule
// with a Value covers single records instead (DNSControl's IGNORE with
// a target): those of the RRset whose value matches stay as they are,
// beside the records the spec wants there.
type IgnoreRule struct {
	// Name is a glob over canonical names (path.Match syntax, where `*`
	// matches any run of characters, dots included), absolute: the
	// compiler qualifies a relative pattern with the zone's name.
	Name string
	Type string // upper case; "" matches every type
	// Value is a glob over a record's value, "" for every record of
	// the RRset; `*` matches any run of characters, slashes included.
	Value string `json:",omitempty"`
	Pos   Pos
}

// Matches reports whether the rule covers the RRset name/typ. A rule
// with a Value covers records, not RRsets, and matches none here.
func (r IgnoreRule) Matches(name, typ string) bool {
	if r.Value != "" {
		return false
	}
	return r.matchesSet(name, typ)
}

func (r IgnoreRule) matchesSet(name, typ string) bool {
	if r.Type != "" && r.Type != typ {
		return false
	}
	ok, err := path.Match(r.Name, name)
	return ok && err == nil
}

// MatchesRecord reports whether the rule, one with a Value, covers a
// record of name/typ whose value is spelt as any of texts (the caller
// gives the canonical value and, for TXT, its text unquoted).
func (r IgnoreRule) MatchesRecord(name, typ string, texts ...string) bool {
	if r.Value == "" || !r.matchesSet(name, typ) {
		return false
	}
	// path.Match stops `*` at a slash, which a value (a URI, base64)
	// may hold: slashes become a byte no value holds, in both.
	pattern := strings.ReplaceAll(r.Value, "/", "\x00")
	for _, t := range texts {
		if ok, err := path.Match(pattern, strings.ReplaceAll(t, "/", "\x00")); ok && err == nil {
			return true
		}
	}
	return false
}

// Ignored returns the first of z's ignore rules that covers name/typ,
// or nil.
func (z *Zone) Ignored(name, typ string) *IgnoreRule {
	for i := range z.Ignore {
		if z.Ignore[i].Matches(name, typ) {
			return &z.Ignore[i]
		}
	}
	return nil
}

// KeepsRecords reports whether some rule of z covers single records of
// name/typ (one with a Value).
func (z *Zone) KeepsRecords(name, typ string) bool {
	for i := range z.Ignore {
		if z.Ignore[i].Value != "" && z.Ignore[i].matchesSet(name, typ) {
			return true
		}
	}
	return false
}

// RecordIgnored returns the first of z's value rules that covers the
// record of name/typ spelt as texts, or nil.
func (z *Zone) RecordIgnored(name, typ string, texts ...string) *IgnoreRule {
	for i := range z.Ignore {
		if z.Ignore[i].MatchesRecord(name, typ, texts...) {
			return &z.Ignore[i]
		}
	}
	return nil
}

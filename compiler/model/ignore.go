package model

import "path"

// IgnoreRule is one entry of a zone's ignore list: live RRsets it
// matches are left to whoever wrote them. site neither adopts, changes
// nor deletes them, and they do not count toward delete gates.
type IgnoreRule struct {
	// Name is a glob over canonical names (path.Match syntax, where `*`
	// matches any run of characters, dots included), absolute: the
	// compiler qualifies a relative pattern with the zone's name.
	Name string
	Type string // upper case; "" matches every type
	Pos  Pos
}

// Matches reports whether the rule covers the RRset name/typ.
func (r IgnoreRule) Matches(name, typ string) bool {
	if r.Type != "" && r.Type != typ {
		return false
	}
	ok, err := path.Match(r.Name, name)
	return ok && err == nil
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

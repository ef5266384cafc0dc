package compiler

import (
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A zone's ignore rules are asked about each of its names, and
// model.Zone.Ignored tries every rule: 30,000 rules beside 30,000
// records would be quadratic, as the cuts were (rrindex.go). Most
// rules name one name; an ignoreIndex finds those by name and tries
// only the globs in turn, answering as Ignored does (the first rule in
// the zone's order that matches).

// ignoreIndex holds a zone's ignore rules: those naming one name by
// that name, the globs in order. Both hold indices into the zone's
// rules.
type ignoreIndex struct {
	exact map[string][]int
	globs []int
}

func indexIgnore(z *model.Zone) *ignoreIndex {
	ii := &ignoreIndex{exact: map[string][]int{}}
	for i, r := range z.Ignore {
		if strings.ContainsAny(r.Name, `*?[\`) {
			ii.globs = append(ii.globs, i)
		} else {
			ii.exact[r.Name] = append(ii.exact[r.Name], i)
		}
	}
	return ii
}

// first returns the first of z's rules that covers name and typ (any
// type when anyType), or nil.
func (ii *ignoreIndex) first(z *model.Zone, name, typ string, anyType bool) *model.IgnoreRule {
	best := -1
	matches := func(i int) bool {
		r := z.Ignore[i]
		t := typ
		if anyType {
			t = r.Type
		}
		return r.Matches(name, t)
	}
	for _, i := range ii.exact[name] {
		if matches(i) {
			best = i
			break
		}
	}
	for _, i := range ii.globs {
		if best >= 0 && i > best {
			break
		}
		if matches(i) {
			best = i
			break
		}
	}
	if best < 0 {
		return nil
	}
	return &z.Ignore[best]
}

// ignored is z.Ignored(name, typ) through z's index, built once.
func (c *checker) ignored(z *model.Zone, name, typ string) *model.IgnoreRule {
	return c.ignoreIndex(z).first(z, name, typ, false)
}

func (c *checker) ignoreIndex(z *model.Zone) *ignoreIndex {
	if c.ign == nil {
		c.ign = map[*model.Zone]*ignoreIndex{}
	}
	ii, ok := c.ign[z]
	if !ok {
		ii = indexIgnore(z)
		c.ign[z] = ii
	}
	return ii
}

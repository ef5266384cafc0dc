package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync/atomic"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rules"
)

// What each provider kind takes where it takes less than DNS does (its
// TTL range, the types it serves and proxies, the values it refuses) is
// the provider's data (compiler/rules), not the compiler's code: the
// command hands the provider table's rules to UseRules before it loads
// a spec, and the checks below read them for each provider serving a
// zone. A zone on a kind without rules is refused, not checked against
// nothing.

// ruleState is the rules in use and their hash, part of every cache
// key: the rules are Go data in the binary, so they are the same for
// every run of it, and the hash keeps a cached result from being read
// under other rules all the same (a test's, or a binary's that wires
// the table differently).
type ruleState struct {
	set rules.Set
	sum string
}

var inUse atomic.Pointer[ruleState]

// UseRules sets the record rules of each provider kind that every load
// after it checks zones against (backends/providers.RecordRules).
func UseRules(s rules.Set) {
	data, err := json.Marshal(s) // map keys sorted, pointers followed
	if err != nil {
		panic("compiler.UseRules: " + err.Error()) // plain data: cannot fail
	}
	sum := sha256.Sum256(data)
	inUse.Store(&ruleState{set: s, sum: hex.EncodeToString(sum[:])})
}

// ruleSet is the rules in use; nil before UseRules.
func ruleSet() rules.Set {
	if st := inUse.Load(); st != nil {
		return st.set
	}
	return nil
}

// rulesSum names the rules in use for the cache key.
func rulesSum() string {
	if st := inUse.Load(); st != nil {
		return st.sum
	}
	return "none"
}

// ruled is a provider of a zone and its kind's rules.
type ruled struct {
	p model.Provider
	r *rules.Rules
}

// servedRules lists the rules each provider of z holds it to, one
// provider per kind (two Cloudflare accounts refuse the same records,
// and say so once), in the zone's order. A provider whose kind has no
// rules is left out: checkRulesKnown refused the zone.
func servedRules(z *model.Zone) []ruled {
	set := ruleSet()
	var out []ruled
	for _, p := range z.Served() {
		r := set[p.Kind()]
		if r == nil {
			continue
		}
		dup := false
		for _, s := range out {
			dup = dup || s.r == r
		}
		if !dup {
			out = append(out, ruled{p, r})
		}
	}
	return out
}

// checkRulesKnown refuses zone z at zp when a provider serving it is of
// a kind this build has no record rules for: a build that did not hand
// the compiler its provider table's rules.
func (b *builder) checkRulesKnown(zp []string, z *model.Zone) {
	set := ruleSet()
	for _, p := range z.Served() {
		if k := p.Kind(); k != "" && set[k] == nil {
			b.errorf(at(zp, "provider"), "this build of site has no record rules for %s provider %q, so vet cannot check what it takes; it is a bug in how site was built (the provider table's rules were not given to the compiler): report it", k, p.Name)
			return
		}
	}
}

package graph

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/plan"
)

// maxListed caps how many step IDs an unmatched --target error lists, so
// a typo against thousands of steps stays readable; site graph lists all.
const maxListed = 50

// Targets keeps the steps whose ID matches one of patterns, plus the
// steps they need, as Only does (see needs): a zone needs its API token
// read, a VM its networks and pools, but a VM publishing into the zone
// is not converged by targeting the zone. An empty list keeps everything.
//
// A pattern is an exact step ID ("dns/sjc.example.net.",
// "vm/qemu:///system/keys") or a glob in the syntax of path.Match, except
// that * also matches "/", since host URIs in step IDs hold slashes:
// "vm/*/keys", "dns/*", "dns/*.example.net.". There is no tenant prefix:
// a tenant is scoped by naming its spec file as PATH.
//
// A pattern that matches no step is an error listing the steps that are
// in g: a typo must not turn into a run that converges nothing and
// reports success.
func (g *Graph) Targets(patterns []string) (*Graph, error) {
	if len(patterns) == 0 {
		return g, nil
	}
	matched := map[string]bool{}
	for _, p := range patterns {
		match, err := TargetMatch([]string{p})
		if err != nil {
			return nil, err
		}
		n := 0
		for _, s := range g.Steps {
			if match(s.ID) {
				matched[s.ID] = true
				n++
			}
		}
		if n == 0 {
			return nil, g.noMatch(p)
		}
	}
	return g.keep(func(s *Step) bool { return matched[s.ID] }), nil
}

// TargetMatch reports whether a step ID matches one of patterns, as
// Targets matches them; an empty list matches every ID. It errs as
// Targets does on a pattern that is no glob.
func TargetMatch(patterns []string) (func(id string) bool, error) {
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		re, err := compileTarget(p)
		if err != nil {
			return nil, err
		}
		res[i] = re
	}
	return func(id string) bool {
		if len(res) == 0 {
			return true
		}
		for _, re := range res {
			if re.MatchString(id) {
				return true
			}
		}
		return false
	}, nil
}

// noMatch explains a pattern that matched nothing, with the IDs it could
// have named.
func (g *Graph) noMatch(pattern string) error {
	if len(g.Steps) == 0 {
		return fmt.Errorf("pattern %q matches no step: no step is in scope (check the spec paths and --only)", pattern)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pattern %q matches no step", pattern)
	if g.byID[pattern+"."] != nil {
		fmt.Fprintf(&b, " (DNS step IDs end in a dot: %s)", pattern+".")
	}
	// A change key as site diff prints it (dns/ZONE/NAME/TYPE,
	// vm/URI/NAME/memory) names a part of a step. Steps converge whole:
	// say which step holds it rather than converge the zone silently.
	if id := g.stepOf(pattern); id != "" {
		fmt.Fprintf(&b, " (%s is a change in step %s; --target takes whole steps: --target %s converges all of it)", pattern, id, id)
	}
	if hint := g.meantStep(pattern); hint != "" {
		b.WriteString(" (" + hint + ")")
	}
	b.WriteString("; the steps in scope are:")
	ids := make([]string, len(g.Steps))
	for i, s := range g.Steps {
		ids[i] = s.ID
	}
	sort.Strings(ids)
	for i, id := range ids {
		if i == maxListed {
			fmt.Fprintf(&b, "\n  ... and %d more (site graph lists them all)", len(ids)-maxListed)
			break
		}
		b.WriteString("\n  " + id)
	}
	return fmt.Errorf("%s", b.String())
}

// stepKinds are the first segments of step IDs: a pattern beginning
// with one of them was written as a step ID.
var stepKinds = []string{"secret/", "network/", "pool/", "image/", "vm/", "dns/"}

// meantStep tells the step ID a pattern that is not one most likely
// meant, or "": a VM named as --restart names it (TENANT/VM), or by its
// name alone, and a zone named without dns/ (with or without its final
// dot). A glob is left alone: it was written as one.
func (g *Graph) meantStep(pattern string) string {
	if strings.ContainsAny(pattern, `*?[\`) {
		return ""
	}
	for _, k := range stepKinds {
		if strings.HasPrefix(pattern, k) {
			return ""
		}
	}
	zone := strings.ToLower(strings.TrimSuffix(pattern, ".")) + "."
	if g.byID[ZoneStepID(zone)] != nil {
		return "--target takes step IDs: --target " + ZoneStepID(zone)
	}
	// A zone on several providers is a step per provider (ZoneStepIDs).
	var onEach []string
	for _, s := range g.Steps {
		if s.Zone != nil && s.Zone.Name == zone && len(s.Zone.Providers) > 1 {
			onEach = append(onEach, s.ID)
		}
	}
	if len(onEach) > 0 {
		sort.Strings(onEach)
		return "--target takes step IDs, and zone " + zone + " is a step per provider: --target " + strings.Join(onEach, ", --target ") + ", or --target '" + ZoneStepID(zone) + "@*'"
	}
	tenant, name, isPair := strings.Cut(pattern, "/")
	if !isPair {
		name = pattern
	}
	if name == "" || strings.Contains(name, "/") {
		return ""
	}
	var all, own []string
	for _, s := range g.Steps {
		if s.Phase == plan.PhaseVM && strings.HasPrefix(s.ID, "vm/") && s.ID[strings.LastIndex(s.ID, "/")+1:] == name {
			all = append(all, s.ID)
			if isPair && s.Tenant == tenant {
				own = append(own, s.ID)
			}
		}
	}
	if len(all) == 0 {
		return ""
	}
	why := "--target takes step IDs"
	if isPair {
		why += ", not TENANT/VM as --restart does"
	}
	ids := own
	if len(ids) == 0 {
		ids = all
	}
	if len(ids) > 1 && len(ids) == len(all) {
		return fmt.Sprintf("%s: --target vm/*/%s takes every VM named %s", why, name, name)
	}
	sort.Strings(ids)
	return why + ": --target " + strings.Join(ids, " --target ")
}

// stepOf returns the longest step ID that key starts with, followed by
// a slash: the step a change key of site diff belongs to, or "".
func (g *Graph) stepOf(key string) string {
	best := ""
	for _, s := range g.Steps {
		if strings.HasPrefix(key, s.ID+"/") && len(s.ID) > len(best) {
			best = s.ID
		}
	}
	return best
}

// compileTarget turns a pattern into an anchored regular expression:
// * is any run of characters, ? is one character, [...] a class ([^...]
// negated, a-z ranges), and \ quotes the next character.
func compileTarget(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern: name a step ID such as dns/example.org. or a glob such as dns/*")
	}
	bad := func(why string) error {
		return fmt.Errorf("pattern %q: %s", pattern, why)
	}
	var re strings.Builder
	re.WriteString("^")
	r := []rune(pattern)
	for i := 0; i < len(r); i++ {
		switch c := r[i]; c {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		case '\\':
			if i+1 == len(r) {
				return nil, bad(`ends in a lone \`)
			}
			i++
			re.WriteString(regexp.QuoteMeta(string(r[i])))
		case '[':
			re.WriteString("[")
			i++
			if i < len(r) && r[i] == '^' {
				re.WriteString("^")
				i++
			}
			start := i
			for ; i < len(r) && r[i] != ']'; i++ {
				switch {
				case r[i] == '\\' && i+1 < len(r):
					i++
					re.WriteString(regexp.QuoteMeta(string(r[i])))
				case r[i] == '-':
					re.WriteString("-")
				default:
					re.WriteString(regexp.QuoteMeta(string(r[i])))
				}
			}
			if i == len(r) {
				return nil, bad("a [ has no closing ]")
			}
			if i == start {
				return nil, bad("[] names no character")
			}
			re.WriteString("]")
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	out, err := regexp.Compile(re.String())
	if err != nil {
		return nil, bad(fmt.Sprintf("not a valid glob (%v)", err))
	}
	return out, nil
}

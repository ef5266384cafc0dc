package compiler

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A neighbour is a tenant file loaded beside the files a run names, for
// the checks between tenants only (Load). Those checks are of two
// kinds. The claims (one holder per zone, VM and network, one tenant
// per disk volume, networks apart, MACs unique on a host) read names,
// prefixes and addresses: every tenant takes part in them, a neighbour
// as its index (neighbourindex.go) holds it. The record checks (one
// writer per name, DS and delegations, dangling targets) read another
// file's records only where a zone of one file is at, above or below a
// zone of another (a cut between them); a neighbour none of whose zones
// is, is alone in them, and what they find in it is what they find in
// it alone, which its index keeps. So a neighbour with no such zone is
// checked as its index says; any other (or one whose tenant another
// file declares too, which oneFile weighs by the file's whole content)
// is read whole and checked with the rest.

// splitNeighbours is false only in tests, which compare what a load
// reports with every file checked whole.
var splitNeighbours = true

// builtFile is one file's part of the model: the tenants it holds that
// the model takes, what building them reported, and whether its record
// checks are the file's own (alone).
type builtFile struct {
	r       *fileResult
	tenants []*model.Tenant
	diags   Diagnostics // building's
	alone   bool
}

// declarations counts, before oneFile takes tenants out of the files
// that should not declare them, how many files declare each tenant, and
// which tenants each file declares.
type declarations struct {
	count map[string]int
	in    map[*fileResult][]string
}

func declarationsOf(results []*fileResult) declarations {
	d := declarations{count: map[string]int{}, in: map[*fileResult][]string{}}
	for _, r := range results {
		names := declaredTenants(r)
		d.in[r] = names
		for _, name := range names {
			d.count[name]++
		}
	}
	return d
}

// soleTenant reports whether the neighbour f holds one tenant, named
// after its file, that no other file declares: the only shape an index
// is kept for.
func soleTenant(f *builtFile, d declarations) bool {
	base := strings.TrimSuffix(filepath.Base(f.r.path), ".cue")
	if !f.r.neighbour || len(f.tenants) != 1 || f.tenants[0].Name != base || d.count[base] != 1 || !slices.Equal(d.in[f.r], []string{base}) {
		return false
	}
	return f.r.index != nil || len(f.r.tenants) == 1
}

// markAlone sets alone on each neighbour whose record checks are its
// own (see above), and returns the paths of the neighbours read as
// their index that must be read whole.
func markAlone(files []*builtFile, d declarations, singles map[string]claim) (whole []string) {
	if !slices.ContainsFunc(files, func(f *builtFile) bool { return f.r.neighbour }) {
		return nil // every file is the run's: none is checked alone
	}
	const many = -1
	holder := map[string]int{} // zone name: the index in files of the one file declaring it, or many
	for i, f := range files {
		for _, t := range f.tenants {
			for _, z := range t.Zones {
				if h, ok := holder[z.Name]; !ok {
					holder[z.Name] = i
				} else if h != i {
					holder[z.Name] = many
				}
			}
		}
	}
	tied := make([]bool, len(files))
	for i, f := range files {
		for _, t := range f.tenants {
			for _, z := range t.Zones {
				for n := z.Name; n != "." && n != ""; n = parentName(n) {
					switch h, ok := holder[n]; {
					case !ok || h == i:
					case h == many:
						tied[i] = true // every file declaring n is tied by it: each walks from n
					default:
						tied[i], tied[h] = true, true
					}
				}
			}
		}
	}
	tieSingles(files, singles, tied)
	for i, f := range files {
		f.alone = !tied[i] && soleTenant(f, d)
		if f.r.index != nil && !f.alone {
			whole = append(whole, f.r.path)
		}
	}
	return whole
}

// checkAlone runs the record checks over the tenant of one file, alone:
// what they find there when no zone of another file is at, above or
// below one of its zones (markAlone).
func checkAlone(t *model.Tenant, r *fileResult, w *watchdog) Diagnostics {
	spec := &model.Spec{Tenants: []*model.Tenant{t}}
	c := newChecker(sourcesOf([]*fileResult{r}), w)
	zones := c.claimResources(spec, nil)
	c.diags = nil // the claims are every tenant's together (check)
	c.recordChecks(spec, zones)
	return c.diags
}

// neighbourDiags returns what the files alone report of themselves
// (their index's, or the record checks of each alone), and keeps the
// index of each that was read whole in cache (nil: none).
func neighbourDiags(files []*builtFile, w *watchdog, cache *Cache) Diagnostics {
	var diags Diagnostics
	for _, f := range files {
		if !f.alone {
			continue
		}
		if f.r.index != nil {
			diags = append(diags, f.r.index.diags...)
			continue
		}
		own := checkAlone(f.tenants[0], f.r, w)
		diags = append(diags, own...)
		if cache != nil && f.r.key != "" && !w.halted() {
			all := slices.Concat(f.r.diags, f.diags, own)
			cache.putIndex(f.r.key, f.r, f.tenants[0], all) // a failed write is a miss next time
		}
	}
	return diags
}

// freshResults copies results as assemble may change them (oneFile
// takes tenants out of files, and diagnostics), so that a second
// assemble starts from what was read.
func freshResults(results []*fileResult) []*fileResult {
	if !slices.ContainsFunc(results, func(r *fileResult) bool { return r.index != nil }) {
		return results // no second assemble: nothing to read whole
	}
	out := make([]*fileResult, len(results))
	for i, r := range results {
		c := *r
		if r.tenants != nil {
			c.tenants = make(map[string]*rawTenant, len(r.tenants))
			for k, v := range r.tenants {
				c.tenants[k] = v
			}
		}
		c.diags = slices.Clip(r.diags)
		out[i] = &c
	}
	return out
}

// rereadWhole reads the neighbours at paths whole, in results (of
// inputs) in place of their index: their zones sit at, above or below
// another file's, so their records are checked with the rest.
func rereadWhole(inputs []input, results []*fileResult, paths []string, w *watchdog, o Options, keys *cacheKeyer) ([]*fileResult, error) {
	var again []input
	var at []int
	for i, in := range inputs {
		if slices.Contains(paths, in.path) {
			in.whole = true
			again, at = append(again, in), append(at, i)
		}
	}
	w.enter(phaseEval)
	reread, err := evaluate(again, w, o, keys)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		results[i] = reread[j]
	}
	return results, nil
}

// tieSingles ties, for every name site.cue grants on its own (names:,
// handover.go), the files of its grantee and every file holding a zone
// at or above it: the handover checks read the holding zone's records at
// that name and the grantee's names, which no index carries.
func tieSingles(files []*builtFile, claims map[string]claim, tied []bool) {
	grantees, above := map[string]bool{}, map[string]bool{}
	for name, c := range claims {
		if !c.single {
			continue
		}
		grantees[c.tenant] = true
		for n := name; n != "." && n != ""; n = parentName(n) {
			above[n] = true
		}
	}
	if len(grantees) == 0 {
		return
	}
	for i, f := range files {
		for _, t := range f.tenants {
			if grantees[t.Name] || slices.ContainsFunc(t.Zones, func(z *model.Zone) bool { return above[z.Name] }) {
				tied[i] = true
			}
		}
	}
}

// Package compiler loads tenant specs written in CUE into the typed model
// (package model) and validates them. It is the only package that
// imports CUE: everything after Load works on plain Go values.
//
// Two kinds of file, two owners. The operator's site.cue (package site)
// names every endpoint and credential and grants each tenant its
// domains, providers and hosts. A tenant's file (package tenants, named
// like the tenant) names providers and hosts only by name; the loader
// resolves them, so the model carries URLs and credentials only from
// site.cue, and refuses a tenant that reaches past its grant.
//
// Load checks each file against the embedded schema (package schema),
// decodes it, canonicalises every DNS name once (absolute, lower case,
// trailing dot, IDNA A-labels; "@" is the zone apex; relative names are
// qualified by their zone), and then checks what no schema can say: one
// writer per canonical name across everything loaded, CNAME rules, two
// spellings of one name, record contents per type, names inside their
// zone, NICs naming declared networks, and zones, VMs and networks
// declared by two tenants.
//
// Every problem is reported, positioned in the user's file, as a
// Diagnostics error: the schema's findings for every tenant, and site's
// own checks for every tenant the schema accepted (a tenant the schema
// rejects gets site's checks once it is fixed, as its values cannot be
// trusted before). A warning (Diagnostic.Warning, such as a DS no NS
// delegates) does not make a spec invalid: a spec that loads hands its
// warnings to Options.Warn. A tenant lives in one file: each file is evaluated
// on its own (in parallel, one CUE context per worker, which is what
// keeps a thousand tenants fast), so a tenant spread over two files is
// reported rather than merged, whether or not the schema accepts its
// parts (onefile.go).
//
// Specs are untrusted input (they arrive as pull requests): LoadWith
// evaluates within a time and a memory budget (Options, budget.go),
// syntax that would overflow CUE's recursion is refused before CUE sees
// it (limits.go), and testdata/hostile holds the specs this was tested
// against.
package compiler

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/site-tools/site/compiler/model"
)

// Load reads the operator's file at config (site.cue, package site;
// FindConfig finds it) and the tenant specs at paths (files,
// directories, or "dir/..." for a directory and everything below it),
// validates them together within the default budgets and returns the
// model of the tenants at paths. Every other tenant file beside one of
// them is loaded too, for the checks between tenants only (one writer
// per name, one holder per zone), so converging one tenant's file cannot
// miss a clash with its neighbours. When anything is wrong the error is
// a Diagnostics listing every problem found.
func Load(config string, paths []string) (*model.Spec, error) {
	return LoadWith(config, paths, Options{})
}

// LoadWith is Load with options: a spec whose evaluation passes a
// budget is a Diagnostics error at the file being evaluated.
//
// The budgets cover the whole load (budget.go): reading site.cue and the
// files, evaluating them and the checks after.
func LoadWith(config string, paths []string, o Options) (*model.Spec, error) {
	first := config
	if len(paths) > 0 {
		first = paths[0]
	}
	w := watch(o, first)
	defer w.stop()
	return w.bound(func() (*model.Spec, error) { return loadWith(config, paths, o, w) })
}

func loadWith(config string, paths []string, o Options, w *watchdog) (*model.Spec, error) {
	op, opDiags := readOperator(config)
	if op == nil {
		return nil, opDiags.sort() // it does not evaluate: nothing to check tenants with
	}
	files, diags := expand(paths)
	diags = append(diags, opDiags...)
	files = withoutFile(files, config)
	all := withoutFile(withSiblings(files), config)
	scoped := map[string]bool{}
	for _, f := range files {
		scoped[f] = true
	}
	if o.Neighbours {
		for _, f := range all {
			scoped[f] = true
		}
	}
	var early func(*fileResult)
	if o.Early != nil && len(opDiags) == 0 { // a load that fails costs no request
		// A file cached under a larger budget than this run's is
		// refused for its strings (withinStrings): none of its zones
		// may cost a request meanwhile.
		maxStrings := o.withDefaults().EvalMemory / stringsShare
		early = func(r *fileResult) {
			if r.strings <= maxStrings {
				earlyZones(op, r, o.Early)
			}
		}
	}
	// Two files with one name (tenants/a.cue, tenants/team/a.cue) are
	// one tenant split over them, which the load refuses; each may hold
	// as many zones as the tenant's limit, so neither reads ahead, or N
	// such files would read N times the limit before the load failed.
	named := map[string]int{}
	for _, f := range all {
		named[filepath.Base(f)]++
	}
	inputs := make([]input, len(all))
	for i, f := range all {
		inputs[i] = input{path: f}
		if scoped[f] && named[filepath.Base(f)] == 1 {
			inputs[i].cached = early
		}
	}
	var keys *cacheKeyer
	if o.Cache != nil {
		// A cache that cannot say which build this is (or read
		// site.cue, which then fails below) is not used.
		if site, err := os.ReadFile(config); err == nil {
			keys, _ = o.Cache.keyer(site)
		}
	}
	for i := range inputs {
		// A neighbour whose name is another file's is never read as
		// its index: which one holds the tenant is oneFile's to say.
		inputs[i].neighbour = splitNeighbours && !scoped[inputs[i].path] && named[filepath.Base(inputs[i].path)] == 1
	}
	results, err := evaluate(inputs, w, o, keys)
	if err != nil {
		return nil, err
	}
	var cache *Cache
	if keys != nil {
		cache = o.Cache
	}
	spec, whole, err := assembleCached(op, freshResults(results), scoped, slices.Clip(diags), o.Warn, w, cache)
	if len(whole) == 0 {
		return spec, err
	}
	if results, err = rereadWhole(inputs, results, whole, w, o, keys); err != nil {
		return nil, err
	}
	spec, _, err = assembleCached(op, results, scoped, diags, o.Warn, w, cache)
	return spec, err
}

// LoadSource validates one tenant spec held in memory, named name,
// against an operator's file held in memory, named configName, within
// the default budgets: site init checks what it generated with it
// before writing a byte.
func LoadSource(configName string, config []byte, name string, src []byte) (*model.Spec, error) {
	return LoadSourceWith(configName, config, name, src, Options{})
}

// LoadSourceWith is LoadSource with options: site export hands vet's
// warnings on (Options.Warn).
func LoadSourceWith(configName string, config []byte, name string, src []byte, o Options) (*model.Spec, error) {
	return loadHeld(configName, config, name, src, []string{name}, o)
}

// LoadBeside validates one tenant spec held in memory as Load would
// validate it written at path: with the operator's file held in memory,
// named configName, and every tenant file beside path on disk (the file
// at path itself, if there is one, excepted: src stands for it), within
// the default budgets. Only path's tenants are in the model. site
// export checks the spec it is about to write with it, before writing
// a byte, so that the checks between tenants (one holder per zone, a
// delegation of another tenant's zone) see the file's real neighbours.
func LoadBeside(configName string, config []byte, path string, src []byte) (*model.Spec, error) {
	return LoadBesideWith(configName, config, path, src, Options{})
}

// LoadBesideWith is LoadBeside with options: site export hands vet's
// warnings for path on (Options.Warn).
func LoadBesideWith(configName string, config []byte, path string, src []byte, o Options) (*model.Spec, error) {
	return loadHeld(configName, config, path, src, withoutFile(withSiblings([]string{path}), configName), o)
}

// loadHeld loads the files all (path among them, its data src, the rest
// read from disk) with the operator's file held in memory; only path's
// tenants are in the model.
func loadHeld(configName string, config []byte, path string, src []byte, all []string, o Options) (*model.Spec, error) {
	w := watch(o, path)
	defer w.stop()
	return w.bound(func() (*model.Spec, error) { return loadHeldWithin(configName, config, path, src, all, o, w) })
}

func loadHeldWithin(configName string, config []byte, path string, src []byte, all []string, o Options, w *watchdog) (*model.Spec, error) {
	op, diags := operatorSource(configName, config)
	if len(diags) > 0 {
		return nil, diags.sort()
	}
	inputs := make([]input, len(all))
	for i, f := range all {
		inputs[i] = input{path: f}
		if f == path {
			inputs[i].data = src
		}
	}
	results, err := evaluate(inputs, w, o, nil)
	if err != nil {
		return nil, err
	}
	return assemble(op, results, map[string]bool{path: true}, nil, o.Warn, w)
}

// assemble builds the model from evaluated files and runs the checks
// between tenants. Tenants from files not in scoped are checked and
// counted as writers, but left out of the model, and warn is not given
// their warnings (see Options.Warn). They run within w's budgets (nil:
// none): each file and zone checked is where a budget that passes is
// reported.
func assemble(op *operator, results []*fileResult, scoped map[string]bool, diags Diagnostics, warn func(Diagnostics), w *watchdog) (*model.Spec, error) {
	spec, _, err := assembleCached(op, results, scoped, diags, warn, w, nil)
	return spec, err
}

// assembleCached is assemble keeping neighbours' indexes in cache (nil:
// none), or naming the neighbours read as their index that must be read
// whole (neighbours.go) in whole, and returning nothing else.
func assembleCached(op *operator, results []*fileResult, scoped map[string]bool, diags Diagnostics, warn func(Diagnostics), w *watchdog, cache *Cache) (*model.Spec, []string, error) {
	w.enter(phaseCheck)
	spec := &model.Spec{Vaults: op.vaults}
	// A tenant lives in one file (onefile.go), checked first: it leaves
	// out of each file the tenants and the diagnostics that are not its.
	decl := declarationsOf(results)
	files, owner := oneFile(results)
	diags = append(diags, files...)
	diags = append(diags, op.warnings...)
	built := make([]*builtFile, 0, len(results))
	for _, r := range results {
		if !w.at(model.Pos{File: r.path}) {
			return nil, nil, nil // the budget's diagnostics are bound's
		}
		f := buildFile(op, r, owner)
		diags = append(diags, r.diags...)
		diags = append(diags, f.diags...)
		built = append(built, f)
	}
	if whole := markAlone(built, decl, op.claims); len(whole) > 0 {
		return nil, whole, nil
	}
	all, records := &model.Spec{}, &model.Spec{}
	for _, f := range built {
		all.Tenants = append(all.Tenants, f.tenants...)
		if !f.alone {
			records.Tenants = append(records.Tenants, f.tenants...)
		}
		if scoped[f.r.path] {
			spec.Tenants = append(spec.Tenants, f.tenants...)
		}
	}
	for _, s := range []*model.Spec{spec, all, records} {
		sort.Slice(s.Tenants, func(i, j int) bool { return s.Tenants[i].Name < s.Tenants[j].Name })
	}
	diags = append(diags, checkSplit(all, records, sourcesOf(results), w)...)
	diags = append(diags, neighbourDiags(built, w, cache)...)
	var warnings Diagnostics
	for _, d := range diags {
		if !d.Warning {
			return nil, nil, diags.sort().elided()
		}
		// site.cue's are every run's: it is never a neighbour.
		if scoped[d.Pos.File] || d.Pos.File == op.file {
			warnings = append(warnings, d)
		}
	}
	if warn != nil && len(warnings) > 0 {
		warn(warnings.sort().elided())
	}
	return spec, nil, nil
}

// buildFile builds the tenants of r the model takes (owner: oneFile's);
// a neighbour read as its index is its index's tenant.
func buildFile(op *operator, r *fileResult, owner map[string]*fileResult) *builtFile {
	f := &builtFile{r: r}
	if r.index != nil {
		if owner[r.index.tenant.Name] == r {
			f.tenants = []*model.Tenant{r.index.tenant}
		}
		return f
	}
	b := &builder{op: op, pos: r.pos}
	for _, name := range slices.Sorted(maps.Keys(r.tenants)) {
		t := b.tenant(name, r.tenants[name])
		if owner[name] != r {
			continue // declared in another file first: reported by oneFile
		}
		f.tenants = append(f.tenants, t)
	}
	f.diags = b.diags
	return f
}

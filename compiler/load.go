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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

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
func LoadWith(config string, paths []string, o Options) (*model.Spec, error) {
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
	results, err := evaluate(inputs, o, keys)
	if err != nil {
		return nil, err
	}
	return assemble(op, results, scoped, diags, o.Warn)
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
	results, err := evaluate(inputs, o, nil)
	if err != nil {
		return nil, err
	}
	return assemble(op, results, map[string]bool{path: true}, nil, o.Warn)
}

// assemble builds the model from evaluated files and runs the checks
// between tenants. Tenants from files not in scoped are checked and
// counted as writers, but left out of the model, and warn is not given
// their warnings (see Options.Warn).
func assemble(op *operator, results []*fileResult, scoped map[string]bool, diags Diagnostics, warn func(Diagnostics)) (*model.Spec, error) {
	spec := &model.Spec{Vaults: op.vaults}
	all := &model.Spec{}
	// A tenant lives in one file (onefile.go), checked first: it leaves
	// out of each file the tenants and the diagnostics that are not its.
	files, owner := oneFile(results)
	diags = append(diags, files...)
	diags = append(diags, op.warnings...)
	for _, r := range results {
		diags = append(diags, r.diags...)
		b := &builder{op: op, pos: r.pos}
		for _, name := range sortedKeys(r.tenants) {
			t := b.tenant(name, r.tenants[name])
			if owner[name] != r {
				continue // declared in another file first: reported by oneFile
			}
			all.Tenants = append(all.Tenants, t)
			if scoped[r.path] {
				spec.Tenants = append(spec.Tenants, t)
			}
		}
		diags = append(diags, b.diags...)
	}
	sort.Slice(spec.Tenants, func(i, j int) bool { return spec.Tenants[i].Name < spec.Tenants[j].Name })
	sort.Slice(all.Tenants, func(i, j int) bool { return all.Tenants[i].Name < all.Tenants[j].Name })
	diags = append(diags, check(all, sourcesOf(results))...)
	var warnings Diagnostics
	for _, d := range diags {
		if !d.Warning {
			return nil, diags.sort().elided()
		}
		// site.cue's are every run's: it is never a neighbour.
		if scoped[d.Pos.File] || d.Pos.File == op.file {
			warnings = append(warnings, d)
		}
	}
	if warn != nil && len(warnings) > 0 {
		warn(warnings.sort().elided())
	}
	return spec, nil
}

// filesPerContext is how many files a worker evaluates with one CUE
// context before it starts a new one.
const filesPerContext = 50

// input is one spec to evaluate: a file, or data held in memory.
type input struct {
	path string
	data []byte // nil: read the file at path
	// cached, when not nil, is given the result if the cache holds it,
	// before its positions and records are read (Options.Early).
	cached func(*fileResult)
}

// evaluate runs the CUE part of loading over inputs in parallel, within
// o's budgets. CUE is not safe for concurrent use, so each worker owns an
// evaluator (its own context and its own compiled schema) and hands back
// plain Go values. When a budget passes, evaluate returns its
// diagnostics at once and leaves the workers behind (budget.go). With
// keys (and o.Cache), a file whose result is cached is read back rather
// than evaluated, and the results evaluated are cached once every file
// is done within budget. The pool, the budget watch and the cache are
// one function because their order (start, watch, collect, then cache
// only a complete run) is what keeps a bomb from poisoning the cache.
func evaluate(inputs []input, o Options, keys *cacheKeyer) ([]*fileResult, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	w := watch(o, inputs[0].path)
	defer w.stop()
	maxStrings := w.o.EvalMemory / stringsShare
	results := make([]*fileResult, len(inputs))
	var toCache []string // per input: the key to store its result under
	if keys != nil {
		toCache = make([]string, len(inputs))
	}
	workers := min(runtime.GOMAXPROCS(0), len(inputs))
	next := make(chan int)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for n := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := newEvaluator(w.over)
			if err != nil {
				errs[n] = err
				for range next {
				}
				return
			}
			done := 0
			for i := range next {
				if !w.start(n, inputs[i].path) {
					continue
				}
				if done >= filesPerContext {
					// A CUE context keeps everything it evaluated; a fresh
					// one every so often bounds memory (the schema
					// compiles in about a millisecond).
					if fresh, err := newEvaluator(w.over); err == nil {
						e, done = fresh, 0
					}
				}
				in := inputs[i]
				if keys != nil && in.data == nil {
					data, fail := readSpec(in.path)
					if fail != nil {
						results[i] = fail
						w.finish(n)
						continue
					}
					in.data = data
				}
				if keys != nil {
					key := keys.key(in.path, in.data)
					if r := o.Cache.get(key, in.path, in.cached); r != nil {
						results[i] = r.withinStrings(maxStrings)
						w.finish(n)
						continue
					}
					toCache[i] = key
				}
				results[i] = e.guarded(in)
				if r := results[i].withinStrings(maxStrings); r != results[i] {
					// The refusal depends on the budget, not only on
					// the inputs the key hashes: never cached.
					results[i] = r
					if keys != nil {
						toCache[i] = ""
					}
				}
				if results[i].panicked {
					done = filesPerContext // its context may be broken: start afresh
				}
				w.finish(n)
				done++
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		for i := range inputs {
			next <- i
		}
		close(next)
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-w.over:
		return nil, w.diagnostics()
	}
	select {
	case <-w.over:
		// The budget passed as the last file finished: a worker may
		// have stopped early, so no result can be trusted.
		return nil, w.diagnostics()
	default:
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	stringsTogether(results, maxStrings, toCache)
	if keys != nil {
		store(o.Cache, toCache, results, workers)
	}
	return results, nil
}

// store writes the results that have a key to the cache, on as many
// goroutines as evaluated them. A failed write is a miss next time.
func store(c *Cache, keys []string, results []*fileResult, workers int) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c.put(keys[i], results[i])
			}
		}()
	}
	for i, key := range keys {
		if key != "" && !results[i].panicked {
			next <- i
		}
	}
	close(next)
	wg.Wait()
}

// guarded evaluates one input and turns a panic in CUE (or in site's
// own code) into a diagnostic at the file, so that no spec, however
// hostile, ends in a Go stack trace.
func (e *evaluator) guarded(in input) (r *fileResult) {
	defer func() {
		if p := recover(); p != nil {
			r = &fileResult{path: in.path, pos: &positions{file: in.path}, panicked: true,
				diags: Diagnostics{{Pos: model.Pos{File: in.path, Line: 1, Col: 1},
					Msg: fmt.Sprintf("evaluating this file failed inside site or CUE (%v); this is a bug: please report it with the file", p)}}}
		}
	}()
	if in.data != nil {
		return e.source(in.path, in.data)
	}
	return e.file(in.path)
}

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
// trusted before). A tenant lives in one file: each file is evaluated
// on its own (in parallel, one CUE context per worker, which is what
// keeps a thousand tenants fast), so a tenant spread over two files is
// reported rather than merged.
package compiler

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/site-tools/site/compiler/model"
)

// Load reads the operator's file at config (site.cue, package site;
// FindConfig finds it) and the tenant specs at paths (files,
// directories, or "dir/..." for a directory and everything below it),
// validates them together and returns the model of the tenants at
// paths. Every other tenant file beside one of them is loaded too, for
// the checks between tenants only (one writer per name, one holder per
// zone), so converging one tenant's file cannot miss a clash with its
// neighbours. When anything is wrong the error is a Diagnostics listing
// every problem found.
func Load(config string, paths []string) (*model.Spec, error) {
	op, diags := readOperator(config)
	if len(diags) > 0 {
		return nil, diags.sort()
	}
	files, diags := expand(paths)
	files = withoutFile(files, config)
	all := withoutFile(withSiblings(files), config)
	results, err := evaluate(all)
	if err != nil {
		return nil, err
	}
	scoped := map[string]bool{}
	for _, f := range files {
		scoped[f] = true
	}
	return assemble(op, results, scoped, diags)
}

// LoadSource validates one tenant spec held in memory, named name,
// against an operator's file held in memory, named configName: site
// init checks what it generated with it before writing a byte.
func LoadSource(configName string, config []byte, name string, src []byte) (*model.Spec, error) {
	op, diags := operatorSource(configName, config)
	if len(diags) > 0 {
		return nil, diags.sort()
	}
	e, err := newEvaluator()
	if err != nil {
		return nil, err
	}
	return assemble(op, []*fileResult{e.source(name, src)}, map[string]bool{name: true}, nil)
}

// assemble builds the model from evaluated files and runs the checks
// between tenants. Tenants from files not in scoped are checked and
// counted as writers, but left out of the model.
func assemble(op *operator, results []*fileResult, scoped map[string]bool, diags Diagnostics) (*model.Spec, error) {
	spec := &model.Spec{Vaults: op.vaults}
	all := &model.Spec{}
	owner := map[string]*model.Tenant{}
	for _, r := range results {
		diags = append(diags, r.diags...)
		diags = append(diags, checkFileName(r)...)
		b := &builder{op: op, pos: r.pos}
		for _, name := range sortedKeys(r.tenants) {
			t := b.tenant(name, r.tenants[name])
			if prev, ok := owner[name]; ok {
				diags = append(diags, Diagnostic{Pos: t.Pos, Related: []model.Pos{prev.Pos}, Path: cuePath("tenants", name),
					Msg: fmt.Sprintf("tenant %s is declared in two files; keep each tenant in one file", name)})
				continue
			}
			owner[name] = t
			all.Tenants = append(all.Tenants, t)
			if scoped[r.path] {
				spec.Tenants = append(spec.Tenants, t)
			}
		}
		diags = append(diags, b.diags...)
	}
	sort.Slice(spec.Tenants, func(i, j int) bool { return spec.Tenants[i].Name < spec.Tenants[j].Name })
	sort.Slice(all.Tenants, func(i, j int) bool { return all.Tenants[i].Name < all.Tenants[j].Name })
	diags = append(diags, check(all)...)
	if len(diags) > 0 {
		return nil, diags.sort()
	}
	return spec, nil
}

// filesPerContext is how many files a worker evaluates with one CUE
// context before it starts a new one.
const filesPerContext = 50

// evaluate runs the CUE part of loading over files in parallel. CUE is
// not safe for concurrent use, so each worker owns an evaluator (its own
// context and its own compiled schema) and hands back plain Go values.
func evaluate(files []string) ([]*fileResult, error) {
	results := make([]*fileResult, len(files))
	workers := min(runtime.GOMAXPROCS(0), len(files))
	next := make(chan int)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := newEvaluator()
			if err != nil {
				errs[w] = err
				for range next {
				}
				return
			}
			done := 0
			for i := range next {
				if done == filesPerContext {
					// A CUE context keeps everything it evaluated; a fresh
					// one every so often bounds memory (the schema
					// compiles in about a millisecond).
					if fresh, err := newEvaluator(); err == nil {
						e, done = fresh, 0
					}
				}
				results[i] = e.file(files[i])
				done++
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

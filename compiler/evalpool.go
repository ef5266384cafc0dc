package compiler

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/site-tools/site/compiler/model"
)

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
	// neighbour says the file is loaded for the checks between tenants
	// only: its neighbour index, when cached, stands for it, unless
	// whole says it must be read whole.
	neighbour, whole bool
}

// evaluate runs the CUE part of loading over inputs in parallel, within
// w's budgets (started by the load, which they cover whole). CUE is not safe for concurrent use, so each worker owns an
// evaluator (its own context and its own compiled schema) and hands back
// plain Go values. When a budget passes, evaluate returns its
// diagnostics at once and leaves the workers behind (budget.go). With
// keys (and o.Cache), a file whose result is cached is read back rather
// than evaluated, and the results evaluated are cached once every file
// is done within budget. The pool, the budget watch and the cache are
// one function because their order (start, watch, collect, then cache
// only a complete run) is what keeps a bomb from poisoning the cache.
func evaluate(inputs []input, w *watchdog, o Options, keys *cacheKeyer) ([]*fileResult, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	w.begin(inputs[0].path)
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
				r, key, evaluated := evalOne(e, inputs[i], o, keys, maxStrings)
				results[i] = r
				if keys != nil {
					toCache[i] = key
				}
				if evaluated && r.panicked {
					done = filesPerContext // its context may be broken: start afresh
				}
				w.finish(n)
				if evaluated {
					done++
				}
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
	if !finishedWithin(finished, w.over) {
		return nil, w.diagnostics()
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

// finishedWithin waits for finished, and reports whether every worker
// finished within the budget, over being closed when it passes.
func finishedWithin(finished, over <-chan struct{}) bool {
	select {
	case <-finished:
	case <-over:
		return false
	}
	select {
	case <-over:
		// The budget passed as the last file finished: a worker may
		// have stopped early, so no result can be trusted.
		return false
	default:
	}
	return true
}

// evalOne is the result for in: read from the cache where keys are
// given and it holds one (evaluated false), else evaluated by e. key is
// what to store an evaluated result under; "" for none, as for a
// result refused for the strings budget, which depends on the budget,
// not only on the inputs the key hashes.
func evalOne(e *evaluator, in input, o Options, keys *cacheKeyer, maxStrings uint64) (r *fileResult, key string, evaluated bool) {
	r, key, evaluated = evalOrRead(e, in, o, keys, maxStrings)
	r.neighbour = in.neighbour
	return r, key, evaluated
}

func evalOrRead(e *evaluator, in input, o Options, keys *cacheKeyer, maxStrings uint64) (r *fileResult, key string, evaluated bool) {
	if keys != nil && in.data == nil {
		data, fail := readSpec(in.path)
		if fail != nil {
			return fail, "", false
		}
		in.data = data
	}
	if keys != nil {
		key = keys.key(in.path, in.data)
		if in.neighbour && !in.whole {
			// An index over this run's strings budget is read whole,
			// and refused as the entry would be.
			if r := o.Cache.getIndex(key, in.path); r != nil && r.strings <= maxStrings {
				r.key = key
				return r, "", false
			}
		}
		if r := o.Cache.get(key, in.path, in.cached); r != nil {
			if r = r.withinStrings(maxStrings); r.tenants != nil {
				r.key = key
			}
			return r, "", false
		}
	}
	r = e.guarded(in)
	if within := r.withinStrings(maxStrings); within != r {
		// The refusal depends on the budget, not only on the inputs
		// the key hashes: never cached.
		return within, "", true
	}
	r.key = key
	return r, key, true
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

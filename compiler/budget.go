package compiler

import (
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// Specs arrive as pull requests, and CUE can be made to compute a lot
// from a few bytes (a comprehension over a comprehension, a let that
// doubles), as can site's own checks after it from many names. The
// budgets cover the whole load: reading the files, CUE's evaluation and
// the checks after it (phase). CUE's evaluation cannot be cancelled, so
// Load bounds it from outside: a watchdog stops waiting when a budget
// passes, and Load returns a diagnostic at the file being evaluated or
// checked (bound). The checks stop soon after at their next zone
// (halted); the evaluation runs on in its goroutine until the process
// exits, which a command does right after printing the diagnostic
// (exit 1); a long-lived caller should not call Load on untrusted input
// in-process for that reason.

// Options tune Load. The zero value means the defaults.
type Options struct {
	// EvalTimeout bounds the wall time of the whole load: reading,
	// evaluating and checking every file (site's --eval-timeout); 0 is
	// DefaultEvalTimeout.
	EvalTimeout time.Duration
	// EvalMemory bounds the Go heap in use, in bytes, while files are
	// loaded, evaluated and checked (site's --eval-memory); 0 is
	// DefaultEvalMemory.
	EvalMemory uint64
	// Cache, when not nil, keeps each file's evaluation across runs
	// and skips evaluating a file whose inputs are unchanged (cache.go).
	// nil evaluates every file.
	Cache *Cache
	// Early, when not nil, is given each zone of a file at the paths
	// loaded as soon as the start of its entry in Cache is read, long
	// before the load ends (early.go): its name and the provider
	// site.cue's grant resolves (its Pos is the file's start). Loading
	// workers call it, several at once; the load may still fail
	// afterwards.
	Early func(*model.Zone)
	// Warn, when not nil, is given the warnings (Diagnostic.Warning) of
	// a spec that loads, sorted, once every check has run: only those
	// positioned in the files at the paths loaded, not their neighbours
	// (loaded for the checks between tenants). A spec that does not
	// load has its warnings among the errors Load returns instead.
	Warn func(Diagnostics)
	// Neighbours keeps in the model the tenants of the files loaded
	// beside the paths too, not only for the checks between tenants:
	// site leftovers asks what no tenant declares, which every
	// tenant's file answers, not only those named.
	Neighbours bool
}

// The default budgets are far above what real specs need: 1,000 tenants
// of 50 records, or one zone of 50,000, evaluate in a few seconds and a
// few hundred MB (measured with cmd/sitebench on a 2-core machine).
const (
	DefaultEvalTimeout        = 30 * time.Second
	DefaultEvalMemory  uint64 = 1 << 30
)

func (o Options) withDefaults() Options {
	if o.EvalTimeout <= 0 {
		o.EvalTimeout = DefaultEvalTimeout
	}
	if o.EvalMemory == 0 {
		o.EvalMemory = DefaultEvalMemory
	}
	return o
}

// sampleEvery is how often the watchdog reads the heap size: often
// enough that a bomb allocating a GB a second overshoots by little.
const sampleEvery = 10 * time.Millisecond

// heapInUse is the runtime metric the memory budget is checked
// against: bytes of heap objects, live or not yet swept.
const heapInUse = "/memory/classes/heap/objects:bytes"

// phase is the part of a load a budget can pass in: its message names
// it, so that the fix it suggests fits.
type phase int

const (
	phaseEval  phase = iota // reading site.cue and the files, CUE's evaluation
	phaseCheck              // site's checks after evaluation
)

// checking is the worker id the checks record their position under.
const checking = -1

// watchdog enforces one Load's budgets.
type watchdog struct {
	o        Options
	over     chan struct{} // closed when a budget passes
	stopped  chan struct{}
	prev     int64 // the memory limit before Load set its own
	mu       sync.Mutex
	phase    phase
	current  map[int]model.Pos // worker -> where it is
	last     model.Pos         // where work started last, or the first file
	why      string
	deadline time.Time
	stopOnce sync.Once
}

// watch starts the watchdog for a load of first (the first path it
// was given) and the files after it. The Go memory limit is set to the
// budget while it runs, so that the collector works harder before the
// budget is reached, rather than counting garbage as use.
func watch(o Options, first string) *watchdog {
	w := &watchdog{
		o: o.withDefaults(), over: make(chan struct{}), stopped: make(chan struct{}),
		current: map[int]model.Pos{}, last: model.Pos{File: first, Line: 1, Col: 1},
	}
	w.prev = debug.SetMemoryLimit(int64(min(w.o.EvalMemory, 1<<62)))
	w.deadline = time.Now().Add(w.o.EvalTimeout)
	go w.run()
	return w
}

// begin records that evaluation starts at file, and checks the budgets
// at once, so that one already passed (a budget smaller than the heap)
// stops the load before any file starts, reported at file.
func (w *watchdog) begin(file string) {
	w.mu.Lock()
	w.last = model.Pos{File: file, Line: 1, Col: 1}
	w.mu.Unlock()
	w.check()
}

func (w *watchdog) run() {
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for !w.halted() {
		select {
		case <-w.stopped:
			return
		case <-tick.C:
			w.check()
		}
	}
}

// check trips the watchdog and reports true when a budget has passed.
func (w *watchdog) check() bool {
	if !time.Now().Before(w.deadline) {
		w.trip("time budget of "+w.o.EvalTimeout.String(), "raise it with --eval-timeout")
		return true
	}
	sample := []metrics.Sample{{Name: heapInUse}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > w.o.EvalMemory {
		w.trip("memory budget of "+FormatSize(w.o.EvalMemory)+" of heap", "raise it with --eval-memory")
		return true
	}
	return false
}

// trip says which budget passed, in the words of the phase it passed
// in, and stops the load.
func (w *watchdog) trip(budget, raise string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.why != "" {
		return // tripped already (begin and the ticker both check)
	}
	switch w.phase {
	case phaseEval:
		w.why = "evaluation passed its " + budget + " while evaluating this file; make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, " + raise
	default:
		w.why = "checking the specs after evaluation passed its " + budget + " while checking this file (names, zone cuts, delegations and tenants against each other); make the spec simpler (fewer names?) or, if it is legitimately this large, " + raise
	}
	close(w.over)
}

// enter records that the load moved on to phase p.
func (w *watchdog) enter(p phase) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.phase = p
}

// at records that the checks are at pos (the tenant or zone being
// checked), and reports false when a budget has passed: the checks then
// stop, as nothing they find is used. A nil watchdog never stops them.
func (w *watchdog) at(pos model.Pos) bool {
	if w == nil {
		return true
	}
	if w.halted() {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if pos.File != "" {
		w.current[checking] = model.Pos{File: pos.File, Line: max(pos.Line, 1), Col: max(pos.Col, 1)}
	}
	return true
}

// halted reports whether a budget has passed.
func (w *watchdog) halted() bool {
	if w == nil {
		return false
	}
	select {
	case <-w.over:
		return true
	default:
		return false
	}
}

// start records that worker evaluates file, and reports false when a
// budget has passed already: the worker then stops taking files.
func (w *watchdog) start(worker int, file string) bool {
	if w.halted() {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.current[worker] = model.Pos{File: file, Line: 1, Col: 1}
	w.last = w.current[worker]
	return true
}

func (w *watchdog) finish(worker int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.current, worker)
}

// diagnostics positions the budget's message at every place work was
// at when it passed: the file each worker was evaluating (line 1: CUE
// does not say where inside it the work was), or the tenant or zone
// being checked.
func (w *watchdog) diagnostics() Diagnostics {
	w.mu.Lock()
	defer w.mu.Unlock()
	at := make([]model.Pos, 0, len(w.current))
	for _, p := range w.current {
		at = append(at, p)
	}
	if len(at) == 0 && w.last.File != "" {
		at = append(at, w.last)
	}
	var diags Diagnostics
	for _, p := range at {
		diags = append(diags, Diagnostic{Pos: p, Msg: w.why})
	}
	return diags.sort()
}

// bound runs load and returns what it returns, or the budget's
// diagnostics as soon as a budget passes (the load may run on: see
// above); a result finished after a budget passed may be cut short
// (the checks stop at halted), so it is not used. A panic in site's
// own code is a diagnostic where the work was, not a stack trace.
func (w *watchdog) bound(load func() (*model.Spec, error)) (*model.Spec, error) {
	type result struct {
		spec *model.Spec
		err  error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.mu.Lock()
				at := w.last
				if c, ok := w.current[checking]; ok {
					at = c
				}
				w.mu.Unlock()
				done <- result{err: Diagnostics{{Pos: at, Msg: fmt.Sprintf("loading the specs failed inside site (%v); this is a bug: please report it with the file", p)}}}
			}
		}()
		spec, err := load()
		done <- result{spec, err}
	}()
	select {
	case r := <-done:
		if w.halted() {
			return nil, w.diagnostics()
		}
		return r.spec, r.err
	case <-w.over:
		return nil, w.diagnostics()
	}
}

// stop ends the watchdog and puts the memory limit back.
func (w *watchdog) stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		debug.SetMemoryLimit(w.prev)
	})
}

// FormatSize writes n in the largest binary unit that divides it, as
// ParseSize reads it ("512MiB", "1GiB").
func FormatSize(n uint64) string {
	for _, u := range []struct {
		name string
		size uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

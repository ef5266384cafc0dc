package compiler

import (
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// Specs arrive as pull requests, and CUE can be made to compute a lot
// from a few bytes (a comprehension over a comprehension, a let that
// doubles). CUE's evaluation cannot be cancelled, so Load bounds it from
// outside: a watchdog stops waiting when evaluation passes its time or
// memory budget and Load returns a diagnostic at the file being
// evaluated. The evaluation itself runs on in its goroutine until the
// process exits, which a command does right after printing the
// diagnostic (exit 1); a long-lived caller should not call Load on
// untrusted input in-process for that reason.

// Options tune Load. The zero value means the defaults.
type Options struct {
	// EvalTimeout bounds the wall time of evaluating every file
	// (site's --eval-timeout); 0 is DefaultEvalTimeout.
	EvalTimeout time.Duration
	// EvalMemory bounds the Go heap in use, in bytes, while files are
	// evaluated (site's --eval-memory); 0 is DefaultEvalMemory.
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

// watchdog enforces one Load's budgets.
type watchdog struct {
	o        Options
	over     chan struct{} // closed when a budget passes
	stopped  chan struct{}
	prev     int64 // the memory limit before Load set its own
	mu       sync.Mutex
	current  map[int]string // worker -> file it is evaluating
	last     string         // the file started last, or the first one
	why      string
	stopOnce sync.Once
}

// watch starts the watchdog for evaluating first and the files after
// it. The Go memory limit is set to the budget while it runs, so that
// the collector works harder before the budget is reached, rather than
// counting garbage as use. The budgets are checked once before watch
// returns, so that one already passed (a budget smaller than the heap)
// stops Load before any file starts.
func watch(o Options, first string) *watchdog {
	w := &watchdog{
		o: o.withDefaults(), over: make(chan struct{}), stopped: make(chan struct{}),
		current: map[int]string{}, last: first,
	}
	w.prev = debug.SetMemoryLimit(int64(min(w.o.EvalMemory, 1<<62)))
	deadline := time.Now().Add(w.o.EvalTimeout)
	if !w.check(deadline) {
		go w.run(deadline)
	}
	return w
}

func (w *watchdog) run(deadline time.Time) {
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.stopped:
			return
		case <-tick.C:
			if w.check(deadline) {
				return
			}
		}
	}
}

// check trips the watchdog and reports true when a budget has passed.
func (w *watchdog) check(deadline time.Time) bool {
	if !time.Now().Before(deadline) {
		w.trip(fmt.Sprintf("evaluation passed its time budget of %s", w.o.EvalTimeout), "raise it with --eval-timeout")
		return true
	}
	sample := []metrics.Sample{{Name: heapInUse}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > w.o.EvalMemory {
		w.trip(fmt.Sprintf("evaluation passed its memory budget of %s of heap", FormatSize(w.o.EvalMemory)), "raise it with --eval-memory")
		return true
	}
	return false
}

func (w *watchdog) trip(what, raise string) {
	w.mu.Lock()
	w.why = what + " while evaluating this file; make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, " + raise
	w.mu.Unlock()
	close(w.over)
}

// start records that worker evaluates file, and reports false when a
// budget has passed already: the worker then stops taking files.
func (w *watchdog) start(worker int, file string) bool {
	select {
	case <-w.over:
		return false
	default:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.current[worker] = file
	w.last = file
	return true
}

func (w *watchdog) finish(worker int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.current, worker)
}

// diagnostics positions the budget's message at every file that was
// being evaluated when it passed (line 1: CUE does not say where inside
// it the work was).
func (w *watchdog) diagnostics() Diagnostics {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := make([]string, 0, len(w.current))
	for _, f := range w.current {
		files = append(files, f)
	}
	if len(files) == 0 && w.last != "" {
		files = append(files, w.last)
	}
	sort.Strings(files)
	var diags Diagnostics
	for _, f := range files {
		diags = append(diags, Diagnostic{Pos: model.Pos{File: f, Line: 1, Col: 1}, Msg: w.why})
	}
	return diags
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

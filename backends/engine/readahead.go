package engine

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// readAhead reads zones ahead for site diff. Loading an unchanged spec
// is mostly reading its cache entry and assembling the model, and a
// converged diff then waits for the server's answer: the compiler names
// each zone of a cached file as soon as the start of its entry is read
// (compiler.Options.Early), and its GET starts then, so the server
// works while the load finishes. The zone's observation takes what the
// GET answered (backends.Prefetcher), and counts it as its own read.
//
// Only diff reads ahead: apply observes under the tenant's lock, which
// it takes after the load.
type readAhead struct {
	ctx    context.Context
	cancel context.CancelFunc
	of     func(*model.Zone) backends.Prefetcher
	run    *backends.Run
	wanted func(stepID string) bool // the zones --target keeps
	// At most Parallelism reads at once, each until its answer is
	// taken: a diff of many big zones holds no more decoded answers
	// than its observation would.
	slots chan struct{}
	wg    sync.WaitGroup
	// limit bounds the steps (--max-steps): a zone is a step, so a run
	// past its bound reads no more than the bound ahead before it stops
	// (0: no bound).
	limit   int
	started atomic.Int64
}

// ReadAhead returns what the loader calls with each zone it names
// early (compiler.Options.Early) to read it ahead of its step, for a
// diff scoped by phases and targets, or nil for one without DNS steps.
// With targets it reads only the zones whose step they name; a pattern
// that is no glob reads nothing ahead (the load reports it). limit is
// the bound on the steps (0: none). Close stops the reads nobody took.
func (s *Session) ReadAhead(phases []plan.Phase, targets []string, limit int) func(*model.Zone) {
	p := newReadAhead(s.observing, s.bk.Prefetcher, s.run, phases, targets, s.eng.parallelism(), limit)
	if p == nil {
		return nil
	}
	s.ahead = p
	return p.zone
}

func newReadAhead(ctx context.Context, of func(*model.Zone) backends.Prefetcher, run *backends.Run, phases []plan.Phase, targets []string, parallelism, limit int) *readAhead {
	if len(phases) > 0 && !slices.Contains(phases, plan.PhaseDNS) {
		return nil
	}
	wanted, err := graph.TargetMatch(targets)
	if err != nil {
		return nil
	}
	p := &readAhead{of: of, run: run, wanted: wanted, slots: make(chan struct{}, parallelism), limit: limit}
	p.ctx, p.cancel = context.WithCancel(ctx)
	return p
}

// zone starts reading z. The compiler's loading workers call it: it
// never waits for a read.
func (p *readAhead) zone(z *model.Zone) {
	pf := p.of(z)
	if pf == nil || !p.wanted(graph.ZoneStepIDs(z)[0]) {
		return
	}
	if p.limit > 0 && p.started.Add(1) > int64(p.limit) {
		return
	}
	read := pf.Prefetch(p.ctx, z, p.run)
	if read == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case p.slots <- struct{}{}:
		case <-p.ctx.Done():
			return // the diff ended first: its observation never came
		}
		defer func() { <-p.slots }()
		read()
	}()
}

// stop ends the reads nobody took (a load that failed) and waits for
// them; the session's Close calls it.
func (p *readAhead) stop() {
	if p == nil {
		return
	}
	p.cancel()
	p.wg.Wait()
}

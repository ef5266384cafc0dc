package main

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

// zonePrefetch reads zones ahead for site diff. Loading an unchanged
// spec is mostly reading its cache entry and assembling the model, and
// a converged diff then waits for the server's answer: the compiler
// names each zone of a cached file as soon as the start of its entry is
// read (compiler.Options.Early), and its GET starts then, so the server
// works while the load finishes. The zone's observation takes what the
// GET answered (backends.Prefetcher), and counts it as its own read.
//
// Only diff reads ahead: apply observes under the tenant's lock, which
// it takes after the load.
type zonePrefetch struct {
	ctx    context.Context
	cancel context.CancelFunc
	bk     *runBackends
	run    *backends.Run
	wanted func(stepID string) bool // the zones --target keeps
	// At most --parallelism reads at once, each until its answer is
	// taken: a diff of many big zones holds no more decoded answers
	// than its observation would.
	slots chan struct{}
	wg    sync.WaitGroup
	// limit is --max-steps: a zone is a step, so a run past its bound
	// reads no more than the bound ahead before it stops (0: no bound).
	limit   int
	started atomic.Int64
}

// startPrefetch returns the reader ahead of a diff scoped by phases and
// targets, or nil for a diff without DNS steps. With targets it reads
// only the zones whose step they name; a pattern that is no glob reads
// nothing ahead (the load reports it).
func startPrefetch(ctx context.Context, bk *runBackends, run *backends.Run, phases []plan.Phase, targets []string, parallelism, limit int) *zonePrefetch {
	if len(phases) > 0 && !slices.Contains(phases, plan.PhaseDNS) {
		return nil
	}
	wanted, err := graph.TargetMatch(targets)
	if err != nil {
		return nil
	}
	p := &zonePrefetch{bk: bk, run: run, wanted: wanted, slots: make(chan struct{}, parallelism), limit: limit}
	p.ctx, p.cancel = context.WithCancel(ctx)
	return p
}

// zone starts reading z. The compiler's loading workers call it: it
// never waits for a read.
func (p *zonePrefetch) zone(z *model.Zone) {
	pf, ok := p.bk.Providers[z.Provider.Kind()].(backends.Prefetcher)
	if !ok || !p.wanted(graph.ZoneStepID(z.Name)) {
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
// them; the diff calls it when it returns.
func (p *zonePrefetch) stop() {
	if p == nil {
		return
	}
	p.cancel()
	p.wg.Wait()
}

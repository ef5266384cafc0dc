package engine

import (
	"context"
	"sync"

	"github.com/site-tools/site/compiler/graph"
)

// walk visits every step of g once its dependencies have been visited,
// running visit for at most limit steps at a time. visit receives the
// outcomes of the step's dependencies and returns the step's own, which
// its dependents then see. waits, when not nil, picks the dependencies a
// step waits for; the others are neither waited for nor passed to visit.
//
// One goroutine per step waits for its dependencies and then for a slot,
// as Terraform's DAG walker does: steps are few (tens to hundreds) and
// mostly waiting on the network, so goroutines are cheaper than a
// scheduler. Waiting steps hold no slot, so a deep chain cannot starve
// independent branches.
func walk[T any](ctx context.Context, g *graph.Graph, limit int, waits func(s, dep *graph.Step) bool, visit func(ctx context.Context, s *graph.Step, deps map[string]T) T) map[string]T {
	if limit < 1 {
		limit = 1
	}
	slots := make(chan struct{}, limit)
	done := make(map[string]chan struct{}, len(g.Steps))
	for _, s := range g.Steps {
		done[s.ID] = make(chan struct{})
	}
	var mu sync.Mutex
	out := make(map[string]T, len(g.Steps))
	var wg sync.WaitGroup
	for _, s := range g.Steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[s.ID])
			deps := make(map[string]T, len(s.Deps))
			for _, d := range s.Deps {
				ch, ok := done[d]
				if !ok {
					// graph.Only drops dependencies outside the scope, and
					// graph.Build refuses unknown ones, so this cannot
					// happen with a graph from either.
					continue
				}
				if waits != nil && !waits(s, g.Step(d)) {
					continue
				}
				<-ch
				mu.Lock()
				deps[d] = out[d]
				mu.Unlock()
			}
			slots <- struct{}{}
			r := visit(ctx, s, deps)
			<-slots
			mu.Lock()
			out[s.ID] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

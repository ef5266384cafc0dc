// Package engine walks a step graph: it observes every step through its
// backend, checks the gates, applies, observes again and reports. It is
// the executor of site's pipeline (load, compile, observe, plan, apply,
// verify); what a step does belongs to the
// backends, which it knows only through backends.Driver. cmd/site wires
// the concrete ones in and shows progress through a Hook.
//
// An Engine walks a graph.Graph in dependency order with bounded
// parallelism:
//
//	eng := &engine.Engine{DriverFor: pick, Parallelism: 4, Hook: view}
//	run := engine.NewRun()
//	run.Acked[plan.GateDNSOverwrite] = true
//	obs, err := eng.Plan(ctx, g, run)   // observe every step; obs.Plan is what a user reads
//	rep, err := eng.Apply(ctx, g, obs, run)
//	if !rep.OK() { ... }                 // a step failed, was skipped, or did not converge
//
// Plan runs each step's Driver.Plan once its dependencies planned (so a
// secret step has called runstate.State.SetSecret before a DNS step asks
// runstate.State.Credential). A driver error blocks the step and, as skipped, its
// dependents; a *backends.GatedError blocks it with a gate that,
// acknowledged, defers the step and its dependents while the rest goes
// on.
//
// Apply first checks the whole scope (Observation.Check): a gate not in
// Run.Acked is a *GatesMissingError, a step neither observed nor
// deferred is a *BlockedError, and either means no backend was called.
// Then it calls Driver.Apply for every step with changes, skips the
// dependents of a failed step, observes each applied step again and
// reports what is still not converged in the Report.
//
// A Session (session.go) is one diff or apply around those walks: it
// opens over a provider-blind Backends set (backends/providers.Set),
// reads zones ahead while the specs load, takes each tenant's apply
// lock before the first slow read, renews and releases it, handles the
// first and second interrupt, and closes the backends. What a person
// should hear comes out as Event values through its SessionHook.
//
// The engine writes nothing itself: words, colour and terminals are the
// Hook's business, and the Report is data for the caller to render.
package engine

import (
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// DefaultParallelism is how many steps an Engine runs at once when
// Parallelism is not set.
const DefaultParallelism = 4

// Engine walks a step graph: Plan observes every step and collects what
// would change; Apply carries out an observation. One Engine may serve
// many runs; it keeps no state between calls.
type Engine struct {
	// DriverFor picks the backend of a step. A step whose backend is
	// missing is blocked with this error.
	DriverFor func(*graph.Step) (backends.Driver, error)
	// Parallelism bounds how many steps observe or apply at once
	// (DefaultParallelism when < 1).
	Parallelism int
	// Hook hears of every step as it finishes, for a user interface to
	// show progress; nil is silent.
	Hook Hook
}

func (e *Engine) parallelism() int {
	if e.Parallelism < 1 {
		return DefaultParallelism
	}
	return e.Parallelism
}

func (e *Engine) driverFor(s *graph.Step) (backends.Driver, error) {
	if e.DriverFor == nil {
		return nil, fmt.Errorf("step %s: the engine has no DriverFor (a bug in the caller)", s.ID)
	}
	return e.DriverFor(s)
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/backends/internal/runstate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// Observation is what Engine.Plan saw: the plan a user reads, and each
// observed step's StepPlan (keyed by step ID) that Apply carries out.
// Steps that could not be observed, or that their driver refused, are
// in Plan.Blocked and absent from Steps.
type Observation struct {
	Plan  *plan.Plan
	Steps map[string]*backends.StepPlan
}

// Scope records on the plan the scope it was observed in, for the text
// and a saved plan to show: the --only phases, the --target patterns
// and the steps g kept only because a chosen one needs them.
func (o *Observation) Scope(only []plan.Phase, targets []string, g *graph.Graph) {
	o.Plan.Only, o.Plan.Targets, o.Plan.Prerequisites = only, targets, g.Prerequisites()
}

// planned is one step's outcome during Engine.Plan.
type planned struct {
	sp      *backends.StepPlan
	blocked *plan.Blocked
	// root is the blocked step that kept this one from being observed:
	// itself when its own driver failed, else the first blocked
	// dependency's root. gate is the root's gate, "" when any blocking
	// root offers none (then the step cannot be deferred).
	root string
	gate plan.Gate
}

// Plan observes every step of g in dependency order, at most
// e.Parallelism at a time, and collects what would change.
//
// A step's driver plans only after all its dependencies planned, so a
// secret step's value (set with runstate.State.SetSecret) is there when a DNS step
// needs it, and it is given what they told it (their plans' Outputs, as
// backends.Inputs; Apply gives their results'). A driver error blocks the step: it plans nothing, deletes
// least of all, and its dependents are blocked as skipped. A *backends.GatedError
// blocks it with that gate, which the user may acknowledge to defer the
// step and its dependents.
//
// The error is non-nil only when ctx ended; a blocked step is not an
// error of Plan, it is in the returned plan.
func (e *Engine) Plan(ctx context.Context, g *graph.Graph, run *backends.Run) (*Observation, error) {
	if run == nil {
		run = NewRun()
	}
	runstate.Start(run)
	red := backends.NewRedactor(g, run)
	hook := e.hooks()
	hook.call(func(h Hook) { h.PlanStart(len(g.Steps)) })
	// A dependency that only orders two steps (a zone after the VMs that
	// publish into it) is not waited for: observing the zone needs
	// nothing of the VM's, which may be slow or stuck (a libvirt host
	// that stopped answering).
	needed := func(s, dep *graph.Step) bool { return !graph.OnlyOrders(s, dep) }
	results := walk(ctx, g, e.parallelism(), needed, func(ctx context.Context, s *graph.Step, deps map[string]planned) planned {
		hook.call(func(h Hook) {
			if oh, ok := h.(ObservingHook); ok {
				oh.Observing(s.ID)
			}
		})
		r := e.planStep(ctx, s, deps, run, red)
		hook.call(func(h Hook) { h.Observed(s.ID, r.sp, r.blocked) })
		return r
	})
	obs := &Observation{Plan: plan.New(), Steps: map[string]*backends.StepPlan{}}
	for _, s := range g.Steps {
		r := results[s.ID]
		if r.sp == nil {
			obs.Plan.Blocked = append(obs.Plan.Blocked, *r.blocked)
			continue
		}
		obs.Steps[s.ID] = r.sp
		obs.Plan.Fingerprints[s.ID] = r.sp.Fingerprint
		obs.Plan.Changes = append(obs.Plan.Changes, r.sp.Changes...)
		for _, n := range r.sp.Notes {
			obs.Plan.Notes = append(obs.Plan.Notes, plan.Note{Step: s.ID, Tenant: s.Tenant, Text: n})
		}
		for _, p := range r.sp.Problems {
			obs.Plan.Problems = append(obs.Plan.Problems, plan.Note{Step: s.ID, Tenant: s.Tenant, Text: red.Redact(p)})
		}
	}
	obs.Plan.Sort()
	hook.call(func(h Hook) { h.PlanDone(obs) })
	return obs, ctx.Err()
}

// planStep observes one step whose dependencies are done.
func (e *Engine) planStep(ctx context.Context, s *graph.Step, deps map[string]planned, run *backends.Run, red *backends.Redactor) planned {
	if r, ok := blockedByDeps(s, deps); ok {
		return r
	}
	block := func(err error) planned {
		b := &plan.Blocked{Step: s.ID, Phase: s.Phase, Tenant: s.Tenant, Reason: red.Redact(err.Error()), Hint: hint.Of(err).ToJSON()}
		if b.Hint != nil {
			b.Hint.Text = red.Redact(b.Hint.Text)
		}
		var ge *backends.GatedError
		if errors.As(err, &ge) {
			b.Gate = ge.Gate
		}
		return planned{blocked: b, root: s.ID, gate: b.Gate}
	}
	if err := ctx.Err(); err != nil {
		return block(fmt.Errorf("not observed: %w", err))
	}
	d, err := e.driverFor(s)
	if err != nil {
		return block(err)
	}
	in := backends.Inputs{}
	for id, dep := range deps {
		in[id] = dep.sp.Output // every dependency planned (blockedByDeps)
	}
	ctx = backends.WithInputs(ctx, in)
	sp, err := abandonable(ctx, func() (*backends.StepPlan, error) { return guardedPlan(ctx, d, s, run) })
	if err != nil {
		return block(err)
	}
	if sp == nil {
		return block(fmt.Errorf("step %s: its backend returned no plan and no error (a backend bug): not observed", s.ID))
	}
	sp.Step = s
	for i := range sp.Changes {
		normalizeChange(&sp.Changes[i], s, red)
	}
	return planned{sp: sp}
}

// blockedByDeps reports whether a dependency of s was not planned (not
// observed, or refused by its driver; deps holds those observing s
// needs: see Plan); then s is blocked as skipped, naming the dependency.
func blockedByDeps(s *graph.Step, deps map[string]planned) (planned, bool) {
	var bad []string
	root, gate, gated := "", plan.Gate(""), true
	for _, id := range s.Deps {
		d, ok := deps[id]
		if !ok || d.sp != nil {
			continue
		}
		bad = append(bad, id)
		if root == "" {
			root = d.root
		}
		if d.gate == "" {
			gated = false
		} else if gate == "" {
			gate = d.gate
		}
	}
	if len(bad) == 0 {
		return planned{}, false
	}
	if !gated {
		gate = ""
	}
	sort.Strings(bad)
	reason := fmt.Sprintf("not observed: it depends on %s, which was not planned", strings.Join(bad, ", "))
	return planned{
		blocked: &plan.Blocked{Step: s.ID, Phase: s.Phase, Tenant: s.Tenant, Reason: reason, Gate: gate, Skipped: true},
		root:    root, gate: gate,
	}, true
}

// normalizeChange fills what a driver may leave out from the step, so
// every change in a plan names its step, phase and tenant, and scrubs
// secret values from the words a user will read.
func normalizeChange(c *plan.Change, s *graph.Step, red *backends.Redactor) {
	if c.Step == "" {
		c.Step = s.ID
	}
	if c.Phase == "" {
		c.Phase = s.Phase
	}
	if c.Tenant == "" {
		c.Tenant = s.Tenant
	}
	c.Reason = red.Redact(c.Reason)
}

// abandonable runs observe and returns what it returns, or, when ctx
// ends first, ctx's cause at once. Observing only reads, so a call
// stuck where no context reaches (a libvirt call into a daemon that
// stopped answering blocks in C) is left behind rather than waited for:
// an interrupt stops observing, as README's Ctrl-C section promises,
// and the process ends with the call still pending.
func abandonable(ctx context.Context, observe func() (*backends.StepPlan, error)) (*backends.StepPlan, error) {
	type result struct {
		sp  *backends.StepPlan
		err error
	}
	done := make(chan result, 1)
	go func() {
		sp, err := observe()
		done <- result{sp, err}
	}()
	select {
	case r := <-done:
		return r.sp, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // it ended too: its own words
			return r.sp, r.err
		default:
		}
		return nil, fmt.Errorf("not observed: %w", context.Cause(ctx))
	}
}

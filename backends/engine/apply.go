package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/site-tools/site/backends/internal/runstate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// Apply carries out obs, which Plan returned for g in this process.
//
// Before it calls any backend it checks the whole scope: every gate the
// plan needs must be in run.Acked (else *GatesMissingError) and every
// step must have been observed or deferred by an acknowledged gate (else
// *BlockedError). Either error means nothing was changed.
//
// Then it walks g in dependency order, at most e.Parallelism steps at a
// time. A step with changes goes to its backend's Apply and is then
// observed again; whatever is still planned is reported as not
// converged. A failed step's dependents are skipped while independent
// branches go on. The error is nil whenever the walk ran: failures are in
// the Report (see Report.OK).
func (e *Engine) Apply(ctx context.Context, g *graph.Graph, obs *Observation, run *backends.Run) (*Report, error) {
	if run == nil {
		run = NewRun()
	}
	runstate.Start(run)
	if err := obs.Check(g, run.Acked); err != nil {
		return nil, err
	}
	blocked := map[string]plan.Blocked{}
	for _, b := range obs.Plan.Blocked {
		blocked[b.Step] = b
	}
	red := backends.NewRedactor(g, run)
	hook := e.hooks()
	hook.call(func(h Hook) { h.ApplyStart(len(g.Steps)) })
	results := walk(ctx, g, e.parallelism(), nil, func(ctx context.Context, s *graph.Step, deps map[string]StepReport) StepReport {
		r := e.applyStep(ctx, s, deps, obs.Steps[s.ID], blocked, run, red, hook)
		hook.call(func(h Hook) { h.Applied(r) })
		return r
	})
	rep := &Report{Interrupted: run.Interrupted()}
	for _, s := range g.Steps {
		rep.Steps = append(rep.Steps, results[s.ID])
	}
	hook.call(func(h Hook) { h.ApplyDone(rep) })
	return rep, nil
}

// applyStep carries out one step whose dependencies are done.
func (e *Engine) applyStep(ctx context.Context, s *graph.Step, deps map[string]StepReport, sp *backends.StepPlan, blocked map[string]plan.Blocked, run *backends.Run, red *backends.Redactor, hook *hooks) StepReport {
	r := StepReport{Step: s.ID, Phase: s.Phase, Tenant: s.Tenant, output: planOutput(sp)}
	if b, ok := blocked[s.ID]; ok {
		r.Status = StatusDeferred
		r.Reason = fmt.Sprintf("%s acknowledged: %s", b.Gate, b.Reason)
		return r
	}
	if run.Interrupted() && len(sp.Changes) > 0 {
		r.Status = StatusSkipped
		r.Reason = "not started: the run was interrupted"
		return r
	}
	if held(s, deps, &r) {
		return r
	}
	todo := 0
	for _, c := range sp.Changes {
		if c.Impact == plan.ImpactRefused {
			normalizeChange(&c, s, red)
			r.Refused = append(r.Refused, c)
			continue
		}
		todo++
	}
	if todo == 0 {
		r.Status = StatusUnchanged
		return r
	}
	if err := ctx.Err(); err != nil {
		r.Status = StatusSkipped
		r.Reason = "interrupted: " + err.Error()
		return r
	}
	r.Changes = todo
	d, err := e.driverFor(s)
	if err != nil {
		r.Status, r.Reason = StatusFailed, red.Redact(err.Error())
		return r
	}
	hook.call(func(h Hook) { h.Started(s.ID) })
	// Asked again once the step is known to be in flight: an interrupt
	// that came after the check above but before Started would
	// otherwise let the step write unseen by a caller that trusts
	// Started (site lets go of a tenant's apply lock once none of its
	// steps is in flight). Either the step saw no interrupt, and then
	// its Started was reported before Interrupt returned, or it writes
	// nothing.
	if run.Interrupted() {
		r.Status, r.Reason = StatusSkipped, "not started: the run was interrupted"
		return r
	}
	ctx = backends.WithInputs(ctx, appliedInputs(deps))
	res, err := guardedApply(ctx, d, sp, run)
	if !applied(res, err, red, &r) {
		return r
	}
	e.reobserve(ctx, d, s, run, red, &r)
	return r
}

// held reports in r, and says so, that s waits on a dependency that did
// not complete (skipped) or is deferred (deferred too).
func held(s *graph.Step, deps map[string]StepReport, r *StepReport) bool {
	var failed, deferred []string
	for _, id := range s.Deps {
		d, ok := deps[id]
		if !ok {
			continue
		}
		switch d.Status {
		case StatusFailed, StatusPartial, StatusSkipped:
			failed = append(failed, id)
		case StatusDeferred:
			deferred = append(deferred, id)
		}
	}
	switch {
	case len(failed) > 0:
		r.Status = StatusSkipped
		// "did not complete", not "did not apply": a failed step may
		// have made some of its changes (a write whose answer was
		// lost), a partial one made some.
		r.Reason = fmt.Sprintf("it depends on %s, which did not complete", strings.Join(failed, ", "))
		return true
	case len(deferred) > 0:
		r.Status = StatusDeferred
		r.Reason = fmt.Sprintf("it depends on %s, which is deferred", strings.Join(deferred, ", "))
		return true
	}
	return false
}

// applied records the backend's answer res, err in r and says whether
// the step went through, so that it is to be observed again.
func applied(res *backends.StepResult, err error, red *backends.Redactor, r *StepReport) bool {
	if res != nil {
		if !res.Output.Empty() {
			r.output = res.Output
		}
		r.Requests, r.Reads, r.Writes, r.Queries = res.Requests, res.Reads, res.Writes, res.Queries
		for _, p := range res.Problems {
			r.Problems = append(r.Problems, red.Redact(p))
		}
		for _, n := range res.Notes {
			r.Notes = append(r.Notes, red.Redact(n))
		}
	}
	var partial *backends.PartialError
	r.Hint = hint.Of(err)
	switch {
	case errors.As(err, &partial):
		r.Status, r.Reason = StatusPartial, red.Redact(err.Error())
		return false
	case errors.Is(err, backends.ErrInterrupted) && wroteNothing(*r):
		// The step stopped before its first write (waiting its turn,
		// or for a DHCP lease): not started, as the steps after it.
		r.Status, r.Reason = StatusSkipped, red.Redact(err.Error())
		return false
	case err != nil:
		r.Status, r.Reason = StatusFailed, red.Redact(err.Error())
		return false
	}
	r.Status = StatusApplied
	if res != nil && res.Waiting > 0 {
		r.Waiting = min(res.Waiting, r.Changes)
		if r.Waiting == r.Changes {
			r.Status = StatusPending
		}
	}
	return true
}

// planOutput is what sp tells its dependents, nothing for a step not
// observed.
func planOutput(sp *backends.StepPlan) backends.Output {
	if sp == nil {
		return backends.Output{}
	}
	return sp.Output
}

// appliedInputs are what a step's dependencies tell it when it applies
// (StepReport.output).
func appliedInputs(deps map[string]StepReport) backends.Inputs {
	in := make(backends.Inputs, len(deps))
	for id, dep := range deps {
		in[id] = dep.output
	}
	return in
}

// wroteNothing reports whether r's calls are known to hold no write:
// its backend tells reads from writes and counted none. A backend that
// does not (libvirt: a VM step defines its domain, then is stopped at
// the interrupt uploading its seed) may have written before it
// stopped, and "skipped" would tell the user it changed nothing.
func wroteNothing(r StepReport) bool {
	return r.Writes == 0 && r.Reads+r.Writes == r.Requests
}

// reobserve plans s again after its apply and reports what is still not
// as wanted: a backend whose apply "succeeded" without converging is
// exactly the bug users cannot see (incident 2f).
func (e *Engine) reobserve(ctx context.Context, d backends.Driver, s *graph.Step, run *backends.Run, red *backends.Redactor, r *StepReport) {
	again, err := guardedPlan(ctx, d, s, run)
	if err != nil {
		r.Problems = append(r.Problems, red.Redact("could not observe again after apply, so convergence is unconfirmed: "+err.Error()))
		return
	}
	if again == nil {
		return
	}
	// What the authority serves was checked after the writes (the
	// driver's verification) and again by observing: said once.
	for _, p := range again.Problems {
		if p = red.Redact(p); !slices.Contains(r.Problems, p) {
			r.Problems = append(r.Problems, p)
		}
	}
	if !again.Output.Empty() {
		r.output = again.Output // what is there now
	}
	// Observing again is part of what the apply cost.
	r.Reads += again.Reads
	r.Requests += again.Reads
	for _, c := range again.Changes {
		normalizeChange(&c, s, red)
		r.Residual = append(r.Residual, c)
		if c.Impact == plan.ImpactRefused {
			if !slices.ContainsFunc(r.Refused, func(o plan.Change) bool { return o.Key == c.Key && o.Action == c.Action }) {
				r.Refused = append(r.Refused, c)
			}
			continue
		}
		if c.Impact == plan.ImpactNextBoot {
			// Named with what changes: a VM's memory and vCPUs are two
			// changes of one key, and read as one note said twice.
			until, fields := "the next boot", changedFields(c)
			if c.Phase == plan.PhaseNetwork {
				// A network's persistent definition takes effect when
				// the network is restarted, not when a guest boots; its
				// definition and its DHCP hosts wait for the same
				// restart, so one note per network.
				until, fields = "the network is next restarted", ""
			}
			if n := fmt.Sprintf("pending until %s: %s %s%s", until, c.Action, c.Key, fields); !slices.Contains(r.Notes, n) {
				r.Notes = append(r.Notes, n)
			}
			continue
		}
		r.Problems = append(r.Problems, fmt.Sprintf("not converged: observing again still plans to %s %s", c.Action, c.Key))
	}
}

// Check reports whether obs may be applied to g with the acknowledged
// gates, without calling any backend: a *GatesMissingError when a gate
// the plan needs is not in acked, a *BlockedError when a step was not
// observed and no acknowledged gate defers it, another error when obs
// does not belong to g. Apply calls it first; the CLI may call it to
// fail early.
func (obs *Observation) Check(g *graph.Graph, acked map[plan.Gate]bool) error {
	if obs == nil || obs.Plan == nil {
		return errors.New("no observation to apply: run Plan first")
	}
	blocked := map[string]bool{}
	for _, b := range obs.Plan.Blocked {
		blocked[b.Step] = true
	}
	var unplanned []string
	for _, s := range g.Steps {
		if obs.Steps[s.ID] == nil && !blocked[s.ID] {
			unplanned = append(unplanned, s.ID)
		}
	}
	if len(unplanned) > 0 {
		return fmt.Errorf("steps %s were not observed in this plan (a plan from another graph?): run Plan on the same graph first", strings.Join(unplanned, ", "))
	}
	stuck := obs.Plan.Unobserved(acked)
	ungated := slices.ContainsFunc(stuck, func(b plan.Blocked) bool { return b.Gate == "" })
	sort.Slice(stuck, func(i, j int) bool { return stuck[i].Step < stuck[j].Step })
	// A step that no gate can defer stops the run whatever is
	// acknowledged, so it is reported before missing gates: their
	// message ends with a command to run, which would still fail.
	if ungated {
		return &BlockedError{Blocked: stuck}
	}
	if missing := obs.Plan.Missing(acked); len(missing) > 0 {
		return &GatesMissingError{Missing: missing, Plan: obs.Plan}
	}
	if len(stuck) > 0 {
		return &BlockedError{Blocked: stuck}
	}
	return nil
}

// changedFields names, as " (a, b)", the fields a change sets that
// differ from before; "" when it names none (a create or delete).
func changedFields(c plan.Change) string {
	var fields []string
	for k, after := range c.After {
		if before, ok := c.Before[k]; !ok || !reflect.DeepEqual(before, after) {
			fields = append(fields, k)
		}
	}
	if len(fields) == 0 || c.Action != plan.ActionUpdate {
		return ""
	}
	slices.Sort(fields)
	return " (" + strings.Join(fields, ", ") + ")"
}

package engine

import (
	"sync"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

// Hook hears what an Engine does while it does it, as Terraform's hooks
// feed its views: the engine says which step finished how, and the hook
// decides what a person sees (counters, colour, a line that updates on
// a terminal). The engine calls a Hook from one goroutine at a time, in
// the order the steps finish.
type Hook interface {
	// PlanStart is called before Plan observes total steps.
	PlanStart(total int)
	// Observed reports one step Plan finished: sp when it was observed,
	// else blocked says why not.
	Observed(id string, sp *backends.StepPlan, blocked *plan.Blocked)
	// PlanDone is called when Plan has visited every step.
	PlanDone(obs *Observation)
	// ApplyStart is called before Apply walks total steps (after the
	// gate checks passed).
	ApplyStart(total int)
	// Started reports that Apply hands step to its backend: it is in
	// flight until Applied reports it. Once the run is interrupted,
	// every step that goes on to write was reported Started before it
	// (Apply asks Run.Interrupted after Started, and skips the step
	// then): a caller that sees no step of a tenant in flight after an
	// interrupt knows none of them writes any more. So a step reported
	// Started may still be Applied as skipped, not started.
	Started(step string)
	// Applied reports one step Apply finished.
	Applied(r StepReport)
	// ApplyDone is called when Apply has visited every step.
	ApplyDone(rep *Report)
}

// ObservingHook is a Hook that also hears which steps Plan hands to
// their backend, so it can say what an interrupt stops.
type ObservingHook interface {
	// Observing reports that Plan hands step to its backend: it is being
	// observed until Observed reports it.
	Observing(step string)
}

// hooks serialises calls to a Hook, so that a Hook need not lock, and
// makes a nil Hook silent.
type hooks struct {
	mu sync.Mutex
	h  Hook
}

func (e *Engine) hooks() *hooks { return &hooks{h: e.Hook} }

// call runs f with the hook while no other call runs.
func (k *hooks) call(f func(Hook)) {
	if k.h == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	f(k.h)
}

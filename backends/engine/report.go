package engine

import (
	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// Status is what Apply did with one step.
type Status string

// Step statuses in a Report.
const (
	StatusApplied   Status = "applied"   // its changes were applied
	StatusPending   Status = "pending"   // its changes were made before and wait for a restart; nothing was done (backends.StepResult.Waiting)
	StatusUnchanged Status = "unchanged" // it planned no changes; its backend was not called
	StatusFailed    Status = "failed"    // its backend's Apply returned an error
	StatusPartial   Status = "partial"   // its backend applied some parts of a split write, not all (see backends.PartialError)
	StatusSkipped   Status = "skipped"   // not tried: a step it depends on failed, or the run was interrupted
	StatusDeferred  Status = "deferred"  // not observed, and its gate was acknowledged
)

// StepReport is what happened to one step.
type StepReport struct {
	Step   string
	Phase  plan.Phase
	Tenant string
	Status Status
	// Changes counts the planned changes handed to the backend.
	Changes int
	// Waiting counts those of them the backend found made already,
	// waiting for a restart (StatusPending when it is all of them).
	Waiting int
	// Reason says why a step failed, was skipped or deferred; when the
	// error had advice, Reason ends with it, and Hint is that advice.
	Reason string
	Hint   hint.Hint
	// Problems fail the run: post-apply checks from the backend and
	// changes that re-observing still found.
	Problems []string
	Notes    []string
	// Requests counts the backend's API calls during Apply; Reads and
	// Writes split them when the backend tells them apart (else both
	// are 0), and Queries counts its DNS queries (verification).
	Requests      int
	Reads, Writes int
	Queries       int
	// Residual holds the changes re-observing found after apply; those
	// of impact next-boot are pending by design and reported as notes.
	Residual []plan.Change
	// Refused are the step's planned changes of impact refused: not
	// handed to the backend as changes, not applied; each Reason says
	// why and what frees it. They fail nothing.
	Refused []plan.Change
	// output is what the step tells its dependents when they apply:
	// its plan's Output, or what its apply or the observation after it
	// said instead.
	output backends.Output
}

// Report is what Apply did, one entry per step in graph order.
type Report struct {
	Steps []StepReport
	// Interrupted is true when the run was interrupted (Session.Interrupt):
	// steps in flight finished, the rest were not started.
	Interrupted bool
}

// OK reports whether every step converged or was deferred on purpose:
// none failed or was applied in part, none was skipped, and no problem
// was found.
func (r *Report) OK() bool {
	for _, s := range r.Steps {
		if s.Status == StatusFailed || s.Status == StatusPartial || s.Status == StatusSkipped || len(s.Problems) > 0 {
			return false
		}
	}
	return true
}

// Count returns how many steps ended with status st.
func (r *Report) Count(st Status) int {
	n := 0
	for _, s := range r.Steps {
		if s.Status == st {
			n++
		}
	}
	return n
}

// Refused counts the changes every step refused.
func (r *Report) Refused() int {
	n := 0
	for _, s := range r.Steps {
		n += len(s.Refused)
	}
	return n
}

// Requests sums the API calls every step's Apply made.
func (r *Report) Requests() int {
	n := 0
	for _, s := range r.Steps {
		n += s.Requests
	}
	return n
}

// Calls sums what every step's Apply asked of its backends: API reads
// and writes from the steps that tell them apart, API requests from
// those that do not, and DNS queries.
func (r *Report) Calls() (reads, writes, unsplit, queries int) {
	for _, s := range r.Steps {
		if s.Reads+s.Writes == s.Requests {
			reads, writes = reads+s.Reads, writes+s.Writes
		} else {
			unsplit += s.Requests
		}
		queries += s.Queries
	}
	return reads, writes, unsplit, queries
}

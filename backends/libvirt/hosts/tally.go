//go:build cgo && libvirt_dlopen

package hosts

import "sync/atomic"

// Tally counts the libvirt calls made on one step's behalf: its
// StepResult.Requests. Steps apply at once on one Set (the engine's
// parallelism), so the change of the run-wide count across a step's
// apply would also hold the calls of the steps beside it.
type Tally struct {
	n atomic.Int64
	// observed holds the step's own observations of its hosts (see
	// Set.Observe), under the Set's mu.
	observed map[string]*entry
}

// NewTally returns a Tally that has counted nothing.
func NewTally() *Tally { return &Tally{observed: map[string]*entry{}} }

// add counts one call; a nil tally counts nothing.
func (t *Tally) add() {
	if t != nil {
		t.n.Add(1)
	}
}

// Requests is the number of calls counted so far.
func (t *Tally) Requests() int { return int(t.n.Load()) }

// Counting returns a view of s, sharing its connections, observations
// and run-wide count, whose calls t counts too. A step's apply runs on
// such a view, and so counts only its own calls.
func (s *Set) Counting(t *Tally) *Set { return &Set{shared: s.shared, step: t} }

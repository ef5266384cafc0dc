//go:build cgo && libvirt_dlopen

package libvirt

import "sync/atomic"

// tally counts the libvirt calls made on one step's behalf: its
// StepResult.Requests. Steps apply at once on one Driver (the engine's
// parallelism), so the change of the driver-wide count across a step's
// apply would also hold the calls of the steps beside it.
type tally struct {
	n atomic.Int64
	// observed holds the step's own observations of its hosts (see
	// Driver.observe), under the Driver's mu.
	observed map[string]*hostEntry
}

func newTally() *tally { return &tally{observed: map[string]*hostEntry{}} }

// add counts one call; a nil tally counts nothing.
func (t *tally) add() {
	if t != nil {
		t.n.Add(1)
	}
}

// requests is the number of calls counted so far.
func (t *tally) requests() int { return int(t.n.Load()) }

// counting returns a view of d, sharing its connections, observations
// and driver-wide count, whose calls t counts too. A step's apply runs
// on such a view, and so counts only its own calls.
func (d *Driver) counting(t *tally) *Driver { return &Driver{shared: d.shared, step: t} }

package engine

import (
	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// NewRun returns a Run with the default settings and its state (the
// secrets its steps read, what they compute once, its interrupt): the
// one way outside the engine to make a Run that drivers can use, since
// only the engine creates run state. A backends.NewRun has none until
// Open gives it one; a driver handed it fails with
// backends.ErrNoState.
func NewRun() *backends.Run { return runstate.Start(backends.NewRun()) }

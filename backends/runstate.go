package backends

import "github.com/site-tools/site/backends/internal/runstate"

// What a run's steps hand each other (secrets, values computed once,
// reads left over) and whether it was interrupted live in the Run's
// runstate.State, internal to backends/: the engine and the drivers
// reach it through runstate's narrow accessors (Credentials,
// Secrets, Memos, Interrupts), cmd/site cannot. Only the engine
// gives a Run its state (runstate.Start, from engine.NewRun and
// engine.Open): a Run made elsewhere has none, and a driver handed one
// fails with runstate.ErrNoState.

func init() {
	runstate.Register(func(run any) *runstate.State { return run.(*Run).state },
		func(run any, s *runstate.State) { run.(*Run).state = s })
}

// ErrSecretNotRead means a credential's secret step has not produced a
// value (it is blocked, deferred or out of scope).
var ErrSecretNotRead = runstate.ErrSecretNotRead

// ErrNoState means a driver was handed a Run the engine did not start
// (engine.NewRun, engine.Open).
var ErrNoState = runstate.ErrNoState

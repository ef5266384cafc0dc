package backends

import "github.com/site-tools/site/backends/internal/runstate"

// What a run's steps hand each other (secrets, values computed once,
// reads left over) and whether it was interrupted live in the Run's
// runstate.State, internal to backends/: the engine and the drivers
// reach it through runstate's narrow accessors (Credentials,
// Secrets, Memos, Interrupts), cmd/site cannot. Its zero value is
// ready, so a Run made as a literal holds them as NewRun's does.

func init() {
	runstate.Register(func(run any) *runstate.State { return &run.(*Run).state })
}

// ErrSecretNotRead means a credential's secret step has not produced a
// value (it is blocked, deferred or out of scope).
var ErrSecretNotRead = runstate.ErrSecretNotRead

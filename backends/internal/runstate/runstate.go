// Package runstate holds what the steps of one run hand each other and
// no one else reads: the secrets secret steps read, values computed once
// (Once), reads left for the next step (Leave), and whether the run was
// interrupted. Each capability has its own narrow interface and
// accessor (Credentials, Secrets, Memos, Interrupts) so a DNS driver
// can read a credential but neither record a secret nor interrupt the
// run; TestDriversUseOnlyTheirRunState checks which package uses which.
// Being internal to backends/, it is reachable from the
// engine, which interrupts a run, and from the drivers, which read,
// memoise and leave, but never from cmd/site: the command can neither
// read a secret, plant a value for a step, nor interrupt a run other
// than through the engine (engine.Session.Interrupt, engine.Reads).
//
// A backends.Run holds one State once the engine starts it (Start);
// the accessors find it.
package runstate

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// State is one run's: see the package comment. It has its own lock,
// apart from the Run's settings and servers.
type State struct {
	mu      sync.Mutex
	secrets map[string]string // secret step ID -> value
	memos   map[string]*memo  // see Once
	left    map[string]any    // see Leave

	interrupted atomic.Bool   // see Interrupt
	interruptC  chan struct{} // closed by Interrupt; see Done
}

// of finds a *backends.Run's State, nil if the run has none, and
// attach gives it one; package backends sets both (Register). Their
// argument is untyped because this package cannot name backends.Run:
// backends imports it (a Run holds its State), so the import back would
// be a cycle. The narrow accessors below are what the other packages
// call, each handing out one capability.
var (
	of     func(run any) *State
	attach func(run any, s *State)
)

// Register is how package backends tells where a Run keeps its State;
// it calls it once, in init.
func Register(get func(run any) *State, set func(run any, s *State)) { of, attach = get, set }

// Start gives run (a *backends.Run) its State, unless it has one, and
// returns run. Only the engine calls it (engine.NewRun, engine.Open),
// and tests, through it or directly: a Run made anywhere else has no
// state, and the accessors below fail clearly on it (ErrNoState).
func Start[R any](run R) R {
	if of(run) == nil {
		attach(run, &State{})
	}
	return run
}

// ErrNoState means a driver was handed a Run the engine did not start.
var ErrNoState = errors.New("the run has no state: it was not made by engine.NewRun or opened with engine.Open (tests: runstate.Start(run))")

// state is run's State, or none if it has none.
func state(run any) capabilities {
	if s := of(run); s != nil {
		return s
	}
	return none{}
}

// capabilities is every narrow interface, which *State and none both are.
type capabilities interface {
	CredentialReader
	SecretWriter
	Memo
	Interrupter
}

// none is a Run's state when the engine did not start it: every
// capability fails with ErrNoState, or, where it cannot return an error,
// finds nothing.
type none struct{}

func (none) Credential(func(string) string, model.Credential) (string, error) { return "", ErrNoState }
func (none) SetSecret(string, string) error                                   { return ErrNoState }
func (none) Once(string, func() (any, error)) (any, error)                    { return nil, ErrNoState }
func (none) Known(string) (any, error, bool)                                  { return nil, nil, false }
func (none) Leave(string, any)                                                {}
func (none) Take(string) (any, bool)                                          { return nil, false }
func (none) Interrupt()                                                       { panic(ErrNoState) }

// CredentialReader resolves credentials: all a DNS driver (or the
// vault driver's login) may do with the run's secrets. It cannot
// record a secret, memoise, or interrupt the run.
type CredentialReader interface {
	Credential(getenv func(string) string, c model.Credential) (string, error)
}

// SecretWriter records what a secret step read: the vault driver's one
// capability.
type SecretWriter interface {
	SetSecret(stepID, value string) error
}

// Memo is what drivers that read once and share the answer use (Once,
// Known, Leave, Take); it reads no secret and interrupts nothing.
type Memo interface {
	Once(key string, f func() (any, error)) (any, error)
	Known(key string) (v any, err error, ok bool)
	Leave(key string, v any)
	Take(key string) (any, bool)
}

// Interrupter interrupts a run: the engine's alone (and tests').
type Interrupter interface {
	Interrupt()
}

// Credentials is run's (a *backends.Run) CredentialReader.
func Credentials(run any) CredentialReader { return state(run) }

// Secrets is run's SecretWriter.
func Secrets(run any) SecretWriter { return state(run) }

// Memos is run's Memo.
func Memos(run any) Memo { return state(run) }

// Interrupts is run's Interrupter.
func Interrupts(run any) Interrupter { return state(run) }

// memo is one value a run computes once and its steps share.
type memo struct {
	once sync.Once
	done atomic.Bool // f has returned: v and err are final
	v    any
	err  error
}

// SetSecret records a value read by a secret step, for
// Credential.
func (s *State) SetSecret(stepID, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secrets == nil {
		s.secrets = map[string]string{}
	}
	s.secrets[stepID] = value
	return nil
}

// Secret is the value the secret step id read.
func (s *State) Secret(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.secrets[id]
	return v, ok
}

// Secrets are every secret read so far, for the Redactor; none for a
// nil s (a run the engine did not start).
func (s *State) Secrets() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.secrets))
	for _, v := range s.secrets {
		out = append(out, v)
	}
	return out
}

// Once returns what f returned the first time any step of this run
// asked for key; concurrent callers wait for that first call. It is for
// reads whose answer cannot change in a way that matters within one run
// (a server's zone list that confirms a 404 means "no such zone"): what
// a later step would read differently, it must read itself.
func (s *State) Once(key string, f func() (any, error)) (any, error) {
	s.mu.Lock()
	if s.memos == nil {
		s.memos = map[string]*memo{}
	}
	m := s.memos[key]
	if m == nil {
		m = &memo{}
		s.memos[key] = m
	}
	s.mu.Unlock()
	m.once.Do(func() {
		m.v, m.err = f()
		m.done.Store(true)
	})
	return m.v, m.err
}

// Known returns what Once computed for key without computing it or
// waiting for it: ok is false while no call for key has returned.
func (s *State) Known(key string) (v any, err error, ok bool) {
	s.mu.Lock()
	m := s.memos[key]
	s.mu.Unlock()
	if m == nil || !m.done.Load() {
		return nil, nil, false
	}
	return m.v, m.err, true
}

// Leave hands what a step has just read to the next read of the same
// thing in this run, which takes it with Take instead of asking the
// system again: a zone's creation answers with the zone as a read would,
// so observing it again after the apply costs no request. What is left
// is taken once; a later read asks the system itself.
func (s *State) Leave(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == nil {
		s.left = map[string]any{}
	}
	s.left[key] = v
}

// Take returns and forgets what Leave left under key.
func (s *State) Take(key string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.left[key]
	delete(s.left, key)
	return v, ok
}

// Interrupt asks every step of the run to start nothing new. Steps in
// flight finish; it may be called from any goroutine, more than once.
func (s *State) Interrupt() {
	if !s.interrupted.Swap(true) {
		close(s.Done())
	}
}

// Interrupted reports whether Interrupt was called.
// A nil s (a run the engine did not start) never is.
func (s *State) Interrupted() bool { return s != nil && s.interrupted.Load() }

// Done is closed by Interrupt; made on first use, since a State is
// ready as its zero value. A nil s's is nil: it never closes.
func (s *State) Done() chan struct{} {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interruptC == nil {
		s.interruptC = make(chan struct{})
	}
	return s.interruptC
}

// ErrSecretNotRead means a credential's secret step has not produced a
// value (it is blocked, deferred or out of scope).
var ErrSecretNotRead = errors.New("secret not read")

// Credential resolves a credential reference (from site.cue) to its
// value: from the environment through getenv (the Run's Getenv), or
// the value its secret step read. Values must never be printed, logged
// or written to a plan.
func (s *State) Credential(getenv func(string) string, c model.Credential) (string, error) {
	switch {
	case c.Env != "":
		v := getenv(c.Env)
		if v == "" {
			return "", fmt.Errorf("environment variable %s is empty or unset: export it with the credential's value", c.Env)
		}
		return v, nil
	case c.Vault != nil:
		id := graph.SecretStepID(*c.Vault)
		v, ok := s.Secret(id)
		if !ok {
			return "", fmt.Errorf("%w: %s (its secret step did not run or was deferred)", ErrSecretNotRead, id)
		}
		return v, nil
	}
	return "", errors.New("credential names neither env nor vault")
}

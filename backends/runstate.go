package backends

import (
	"sync"
	"sync/atomic"
)

// runState is what a run's steps hand each other and no one else reads:
// the secrets secret steps read, values computed once (Once) and reads
// left for the next step (Leave). It has its own lock, apart from the
// Run's settings and servers, and its zero value is ready, so a Run made
// as a literal holds secrets as NewRun's does.
type runState struct {
	mu      sync.Mutex
	secrets map[string]string // secret step ID -> value
	memos   map[string]*memo  // see Once
	left    map[string]any    // see Leave
}

// memo is one value a run computes once and its steps share.
type memo struct {
	once sync.Once
	done atomic.Bool // f has returned: v and err are final
	v    any
	err  error
}

// SetSecret records a value read by a secret step, for Credential.
func (r *Run) SetSecret(stepID, value string) {
	s := &r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secrets == nil {
		s.secrets = map[string]string{}
	}
	s.secrets[stepID] = value
}

// secret is the value the secret step id read.
func (s *runState) secret(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.secrets[id]
	return v, ok
}

// secretValues are every secret read so far, for the Redactor.
func (s *runState) secretValues() []string {
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
func (r *Run) Once(key string, f func() (any, error)) (any, error) {
	s := &r.state
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
func (r *Run) Known(key string) (v any, err error, ok bool) {
	s := &r.state
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
func (r *Run) Leave(key string, v any) {
	s := &r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.left == nil {
		s.left = map[string]any{}
	}
	s.left[key] = v
}

// Take returns and forgets what Leave left under key.
func (r *Run) Take(key string) (any, bool) {
	s := &r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.left[key]
	delete(s.left, key)
	return v, ok
}

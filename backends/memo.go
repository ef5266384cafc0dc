package backends

import (
	"sync"
	"sync/atomic"
)

// memo is one value a run computes once and its steps share.
type memo struct {
	once sync.Once
	done atomic.Bool // f has returned: v and err are final
	v    any
	err  error
}

// Once returns what f returned the first time any step of this run
// asked for key; concurrent callers wait for that first call. It is for
// reads whose answer cannot change in a way that matters within one run
// (a server's zone list that confirms a 404 means "no such zone"): what
// a later step would read differently, it must read itself.
func (r *Run) Once(key string, f func() (any, error)) (any, error) {
	r.mu.Lock()
	if r.memos == nil {
		r.memos = map[string]*memo{}
	}
	m := r.memos[key]
	if m == nil {
		m = &memo{}
		r.memos[key] = m
	}
	r.mu.Unlock()
	m.once.Do(func() {
		m.v, m.err = f()
		m.done.Store(true)
	})
	return m.v, m.err
}

// Known returns what Once computed for key without computing it or
// waiting for it: ok is false while no call for key has returned.
func (r *Run) Known(key string) (v any, err error, ok bool) {
	r.mu.Lock()
	m := r.memos[key]
	r.mu.Unlock()
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left == nil {
		r.left = map[string]any{}
	}
	r.left[key] = v
}

// Take returns and forgets what Leave left under key.
func (r *Run) Take(key string) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.left[key]
	delete(r.left, key)
	return v, ok
}

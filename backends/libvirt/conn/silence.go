//go:build cgo && libvirt_dlopen

package conn

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Silence holds, for a run, the hosts whose daemon stopped answering,
// given up on for the rest of the run, and the calls waiting for an
// answer, by server, for what a keepalive close says it cut off. A
// keepalive close reads the calls and gives the host up from inside
// libvirt, maybe while the driver holds its own lock, so Silence has a
// lock of its own. Its zero value is ready for use.
type Silence struct {
	mu       sync.Mutex
	silent   map[string]*SilentHostError
	inflight map[string]map[*inFlightCall]bool
}

// up on, and returns the error the run reports for it from now on: the
// first, which names the call that met the silence first.
func (s *Silence) GiveUp(host string, err *SilentHostError) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if first, ok := s.silent[host]; ok {
		return first
	}
	if s.silent == nil {
		s.silent = map[string]*SilentHostError{}
	}
	s.silent[host] = err
	return err
}

// GivenUp returns why host was given up on for the run, or nil.
func (s *Silence) GivenUp(host string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err, ok := s.silent[host]; ok {
		return err
	}
	return nil
}

// inFlightCall is a call to a server that waits for its answer.
type inFlightCall struct {
	calls string
	since time.Time
}

// Track notes calls to server as in flight until the returned func is
// called, so that a keepalive close can say what it cut off.
func (s *Silence) Track(server, calls string) (untrack func()) {
	c := &inFlightCall{calls: calls, since: time.Now()}
	s.mu.Lock()
	if s.inflight == nil {
		s.inflight = map[string]map[*inFlightCall]bool{}
	}
	if s.inflight[server] == nil {
		s.inflight[server] = map[*inFlightCall]bool{}
	}
	s.inflight[server][c] = true
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.inflight[server], c)
		s.mu.Unlock()
	}
}

// InFlight returns the calls to server that wait for an answer, each
// named once and in order, and how long the oldest has waited.
func (s *Silence) InFlight(server string) (calls string, waited time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := map[string]bool{}
	var oldest time.Time
	for c := range s.inflight[server] {
		names[c.calls] = true
		if oldest.IsZero() || c.since.Before(oldest) {
			oldest = c.since
		}
	}
	if len(names) == 0 {
		return "", 0
	}
	return strings.Join(slices.Sorted(maps.Keys(names)), "; "), time.Since(oldest)
}

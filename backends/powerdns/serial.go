package powerdns

import (
	"strings"
	"sync"
)

// servers hands out one lock per PowerDNS server (API base URL and
// server id), so that a run sends one server one write at a time.
//
// PowerDNS's gsqlite3 backend, the one small sites run, answers two
// concurrent writes with HTTP 500: SQLite allows one writer, and the
// loser fails at once with "database is locked" (in the server's log;
// 4.7.3's body says only "Internal Server Error"). 200 zones written
// four at a time lost 1 to 5 zones in each of 8 runs; one at a time,
// none, in the same wall time, since SQLite writes one at a time
// anyway. Observations stay parallel: a read that meets a write is
// retried (see Driver.retry).
//
// The zero value is ready to use. The Driver is built per run, so the
// locks hold across every step of one run, which is where the steps
// race; separate runs against one server are the operator's to avoid.
type servers struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// lock returns the write lock of the server at url with id server.
func (s *servers) lock(url, server string) *sync.Mutex {
	key := strings.ToLower(strings.TrimRight(url, "/")) + " " + server
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.locks == nil {
		s.locks = map[string]*sync.Mutex{}
	}
	l := s.locks[key]
	if l == nil {
		l = &sync.Mutex{}
		s.locks[key] = l
	}
	return l
}

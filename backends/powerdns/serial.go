package powerdns

import (
	"strings"
	"sync"
)

// servers hands out one write lock per PowerDNS server (API base URL
// and server id), so that a run sends one server one PATCH at a time.
//
// PowerDNS's gsqlite3 backend, the one small sites run, answers two
// concurrent PATCHes with HTTP 500: SQLite allows one writer, and the
// loser fails at once with "database is locked" (in the server's log;
// 4.7.3's body says only "Internal Server Error"). 200 zones written
// four at a time lost 1 to 5 zones in each of 8 runs; one at a time,
// none. Zone creations (POSTs) are different: 800 of them, four at a
// time, on the same server never failed (a PATCH reads the zone before
// it writes in one transaction, and SQLite fails such an upgrade at
// once, where a POST's plain inserts wait their turn), and four at a
// time took 0.85-1.4 s for 200 zones of 50 records against 0.95-2.2 s
// one at a time. So a creation holds the lock shared with other
// creations, every other write holds it alone, and no POST ever runs
// beside a PATCH. Observations stay parallel: a read that meets a write
// is retried (see Driver.retry).
type servers struct {
	mu    sync.Mutex
	locks map[string]*sync.RWMutex
}

// lock returns the write lock of the server at url with id server.
func (s *servers) lock(url, server string) *sync.RWMutex {
	key := strings.ToLower(strings.TrimRight(url, "/")) + " " + server
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.locks == nil {
		s.locks = map[string]*sync.RWMutex{}
	}
	l := s.locks[key]
	if l == nil {
		l = &sync.RWMutex{}
		s.locks[key] = l
	}
	return l
}

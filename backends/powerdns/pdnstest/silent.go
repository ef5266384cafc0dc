package pdnstest

import (
	"bufio"
	"maps"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Silent is a server that accepts connections and never answers, as a
// blackholed or stopped server does once a connection is made.
type Silent struct {
	URL string // http://127.0.0.1:PORT
	// Conns counts the connections, one per try of a request.
	Conns atomic.Int32

	mu   sync.Mutex
	seen map[string]int
}

// StartSilent starts a Silent server, closed (with every connection it
// took) when t ends.
func StartSilent(t *testing.T) *Silent {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Silent{URL: "http://" + l.Addr().String(), seen: map[string]int{}}
	var open []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.Conns.Add(1)
			s.mu.Lock()
			open = append(open, c)
			s.mu.Unlock()
			go s.note(c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	return s
}

// note counts a request by its first line.
func (s *Silent) note(c net.Conn) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	s.mu.Lock()
	s.seen[strings.TrimSpace(line)]++
	s.mu.Unlock()
}

// Tries returns the tries of each request by its first line ("GET
// /api/v1/... HTTP/1.1") since Tries was last called.
func (s *Silent) Tries() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := maps.Clone(s.seen)
	clear(s.seen)
	return out
}

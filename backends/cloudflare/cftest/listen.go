package cftest

import (
	"net"
	"net/http"
	"net/http/httptest"
)

// Serve starts a fake that accepts only token on l, an address its
// caller chose: a program outside the tests (cfserver, which make
// demo-full runs) needs a port fixed in its operator file, where New
// takes a random one. Close it when done; that closes l.
func Serve(token string, l net.Listener) *Server {
	s := newServer(token)
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	// NewUnstartedServer listens on a random loopback port already;
	// that listener is replaced, not used.
	_ = s.Server.Listener.Close()
	s.Server.Listener = l
	s.Server.Start()
	return s
}

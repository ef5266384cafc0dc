package cftest

import (
	"net"
	"testing"
)

// TestServeOnListener: Serve answers on the listener it is given, at
// that listener's address, with the same API and auth as New.
func TestServeOnListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve("tok", l)
	defer s.Close()
	if want := "http://" + l.Addr().String(); s.URL != want {
		t.Errorf("URL = %q, want %q", s.URL, want)
	}
	id := s.AddZone("example.com")
	if got, err := client(t, s, "tok").ZoneIDByName("example.com"); err != nil || got != id {
		t.Errorf("ZoneIDByName = %q, %v; want %q", got, err, id)
	}
	if _, err := client(t, s, "wrong").ZoneIDByName("example.com"); err == nil {
		t.Error("a wrong token was accepted")
	}
}

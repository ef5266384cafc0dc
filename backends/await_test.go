package backends

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/site-tools/site/backends/internal/runstate"
)

// TestAwaitTransportNamesTheHeldRequest: a request the server holds is
// named to Run.Slow, again as the wait goes on, and is among
// Run.Awaiting until its answer comes; then it is gone.
func TestAwaitTransportNamesTheHeldRequest(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	slow := make(chan Awaited, 8)
	run := runstate.Start(&Run{SlowAfter: time.Nanosecond, Slow: func(a Awaited, _ time.Duration) {
		select {
		case slow <- a:
		default:
		}
	}})
	hc := &http.Client{Transport: AwaitTransport(http.DefaultTransport, run, "test server", nil)}
	answered := make(chan error)
	go func() {
		resp, err := hc.Get(srv.URL + "/zones/a.")
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	for range 2 { // the first time, and again
		if a := <-slow; a.Server != "test server" || a.Request != "GET /zones/a." {
			t.Errorf("Slow heard of %+v, want test server, GET /zones/a.", a)
		}
	}
	if got := run.Awaiting(); len(got) != 1 || got[0].Request != "GET /zones/a." {
		t.Errorf("Awaiting() = %+v, want the held GET", got)
	}
	close(release)
	if err := <-answered; err != nil {
		t.Fatal(err)
	}
	if got := run.Awaiting(); len(got) != 0 {
		t.Errorf("Awaiting() = %+v after the answer, want none", got)
	}
}

// TestAwaitTransportWithoutRun: a driver built without a run keeps its
// transport as it is.
func TestAwaitTransportWithoutRun(t *testing.T) {
	if got := AwaitTransport(http.DefaultTransport, nil, "s", nil); got != http.DefaultTransport {
		t.Errorf("AwaitTransport(rt, nil, ...) = %T, want rt itself", got)
	}
}

package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// The kill-point tests (kill_cloudflare_test.go, kill_libvirt_test.go)
// run site apply as a process of its own and kill it (SIGKILL: no
// handler runs, no deferred release, no lock removed) at one boundary of
// its conversation with a server, chosen by a proxy the test puts in
// front of that server. The proxy handles one request at a time, so
// "at request 5, after the server carried it out and before site read
// the answer" is a fact, not a matter of timing, and nothing site sends
// after the kill reaches the server.

// killMoment is where in one request the process dies.
type killMoment int

const (
	// killUnanswered: the server carried the request out, and the
	// process dies before the answer reaches it.
	killUnanswered killMoment = iota
	// killAnswered: the answer was sent to the process, then it dies.
	killAnswered
)

func (m killMoment) String() string {
	if m == killUnanswered {
		return "carried out, answer lost"
	}
	return "answered"
}

// killedRun is one site process that a proxy may kill.
type killedRun struct {
	cmd     *exec.Cmd
	out     bytes.Buffer
	started chan struct{} // closed once cmd runs, so kill has a process

	mu     sync.Mutex
	killed bool
}

// startKillable starts site (the test binary under that name, see
// siteProcess) with args.
func startKillable(t *testing.T, args ...string) *killedRun {
	t.Helper()
	k := &killedRun{cmd: exec.Command(siteProcess(t), args...), started: make(chan struct{})}
	k.cmd.Stdout, k.cmd.Stderr = &k.out, &k.out
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	close(k.started)
	return k
}

// kill sends SIGKILL once; later calls do nothing.
func (k *killedRun) kill() {
	<-k.started
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.killed {
		_ = k.cmd.Process.Kill()
		k.killed = true
	}
}

func (k *killedRun) wasKilled() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.killed
}

// wait waits for the process to end and says whether it was killed; a
// run not killed must have exited 0.
func (k *killedRun) wait(t *testing.T, what string) bool {
	t.Helper()
	err := k.cmd.Wait()
	killed := k.wasKilled()
	if !killed && err != nil {
		t.Fatalf("%s: site apply, not killed, failed: %v\n%s", what, err, k.out.String())
	}
	return killed
}

// killProxy is an HTTP handler in front of a server's handler. It counts
// the requests of the run it is armed for and kills that run at request
// at, at moment when; requests of runs it is not armed for (site in this
// process) pass through.
type killProxy struct {
	next http.Handler

	// mu is held for the whole of each request: the next one is looked
	// at only once this one's kill is done.
	mu   sync.Mutex
	run  *killedRun
	at   int // 1-based; 0: never
	when killMoment
	seen []string // "METHOD path" of each request of the armed run
}

// arm makes the proxy kill run at request at (0: count its requests
// only), at moment when.
func (p *killProxy) arm(run *killedRun, at int, when killMoment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.run, p.at, p.when, p.seen = run, at, when, nil
}

// disarm lets every request through again and returns those the armed
// run made.
func (p *killProxy) disarm() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := p.seen
	p.run, p.at, p.seen = nil, 0, nil
	return seen
}

func (p *killProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run == nil {
		p.next.ServeHTTP(w, r)
		return
	}
	if p.run.wasKilled() {
		// A request the dying process sent after the kill: the server
		// must never see it.
		panic(http.ErrAbortHandler)
	}
	p.seen = append(p.seen, r.Method+" "+r.URL.Path)
	if len(p.seen) != p.at {
		p.next.ServeHTTP(w, r)
		return
	}
	if p.when == killUnanswered {
		p.next.ServeHTTP(httptest.NewRecorder(), r)
		p.run.kill()
		panic(http.ErrAbortHandler) // closes the connection, answering nothing
	}
	p.next.ServeHTTP(w, r)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	p.run.kill()
}

// lockRefused says whether a run was refused because a tenant's lock is
// held, as it is after a killed apply that had taken it.
func lockRefused(code int, stderr string) bool {
	return code == exitError && strings.Contains(stderr, "is being applied by another run")
}

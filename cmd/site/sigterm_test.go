package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestSIGTERMDuringAPatchSendsNothingMore: SIGTERM is an interrupt, as
// Ctrl-C is: sent to a site apply process while its PATCH is on the
// wire, it lets that PATCH finish and starts nothing new. The PATCH's
// answer is lost (a proxy's 502, PowerDNS never saw it), and site does
// not send it again (issue 27: a part re-sent twice after the
// interrupt); it reports the run interrupted and exits 1.
func TestSIGTERMDuringAPatchSendsNothingMore(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "sigterm.example.test"
	srv.CreateZone(t, zone+".")
	var records strings.Builder
	for i := range 3 {
		fmt.Fprintf(&records, "\t\t\th%02d: A: [\"192.0.2.%d\"]\n", i, i+1)
	}
	file := tenantFile(t, srv, zone, records.String())

	var out bytes.Buffer
	stderr := &watchBuffer{changed: make(chan struct{})}
	cmd := exec.Command(siteProcess(t), "apply", file)
	cmd.Stdout, cmd.Stderr = &out, stderr
	inPatch, signalled := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method != http.MethodPatch {
			return 0, "", false
		}
		once.Do(func() { close(inPatch); <-signalled })
		return http.StatusBadGateway, `{"error":"the proxy lost the answer"}`, true
	})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, done := make(chan error, 1), make(chan struct{})
	go func() { exited <- cmd.Wait(); close(done) }()
	select {
	case <-inPatch:
	case <-done:
		t.Fatalf("site ended before its PATCH:\n%s%s", out.String(), stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The PATCH is answered once site has said it was interrupted.
	stderr.waitFor("site: interrupted", done)
	close(signalled)
	err := <-exited
	if code := cmd.ProcessState.ExitCode(); code != exitError {
		t.Errorf("exit %d (%v), want %d:\n%s%s", code, err, exitError, out.String(), stderr)
	}
	if got := srv.Requests(zone + ".").PATCH; got != 1 {
		t.Errorf("PowerDNS got %d PATCHes, want only the one on the wire at SIGTERM:\n%s%s", got, out.String(), stderr)
	}
	all := out.String() + stderr.String()
	for _, want := range []string{"site: interrupted", "not tried again: the run was interrupted"} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
}

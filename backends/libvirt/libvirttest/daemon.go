package libvirttest

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What the session and the system daemon share: each is a libvirtd the
// test started, whose exit arrives on a channel, with its output in a
// log file.

// waitForSocket waits for a connection, not for the file: bind creates
// the socket file before libvirtd listens on it, and a test that
// connects in between is refused (seen on a loaded machine). When the
// daemon exits first, the test fails with the end of its log.
func waitForSocket(t testing.TB, sock string, exited chan error, log string) {
	t.Helper()
	for {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("libvirtd exited before its socket accepted a connection: %v\n%s", err, tail(log))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// terminate asks cmd to stop, kills it when it has not within ten
// seconds, and returns once exited has its exit.
func terminate(cmd *exec.Cmd, exited chan error) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// tail returns the last lines of a daemon's log.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

package libvirttest

import (
	"syscall"
	"testing"
)

// Freeze stops the daemon with SIGSTOP, as a hung host or a stalled
// tunnel leaves it: its socket still accepts connections (the kernel
// queues them) and nothing answers. The returned thaw continues it with
// SIGCONT; it runs when the test ends too, before the daemon is stopped
// (a stopped process does not act on SIGTERM), and may be called early.
func (s *Session) Freeze(t testing.TB) (thaw func()) {
	t.Helper()
	pid := s.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("stop libvirtd (pid %d) with SIGSTOP: %v", pid, err)
	}
	thawed := false
	thaw = func() {
		if !thawed {
			thawed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(thaw)
	return thaw
}

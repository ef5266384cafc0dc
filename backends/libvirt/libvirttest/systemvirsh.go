package libvirttest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func (s *System) virshNames(args ...string) []string {
	out, err := s.virshOut(args...)
	if err != nil {
		return nil
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, s.Prefix) {
			names = append(names, l)
		}
	}
	return names
}

func (s *System) virsh(args ...string) { _, _ = s.virshOut(args...) }

func (s *System) virshOut(args ...string) (string, error) {
	out, err := exec.Command("virsh", append([]string{"-q", "-c", s.URI}, args...)...).CombinedOutput()
	return string(out), err
}

// Virsh runs virsh on the daemon, as an operator would by hand, and
// returns its output; the error includes it.
func (s *System) Virsh(args ...string) (string, error) {
	out, err := s.virshOut(args...)
	if err != nil {
		return out, fmt.Errorf("virsh %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return out, nil
}

// QEMUPID returns the PID of the QEMU process running domain, or 0 when
// it does not run.
func (s *System) QEMUPID(domain string) int {
	pid, err := readPID(filepath.Join("/run/libvirt/qemu", domain+".pid"))
	if err != nil || syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// DnsmasqPID returns the PID of the dnsmasq libvirt runs for network,
// checked to be a live dnsmasq reading that network's config, or 0.
func DnsmasqPID(network string) int {
	pid, err := readPID(filepath.Join("/run/libvirt/network", network+".pid"))
	if err != nil {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return 0
	}
	args := strings.Split(string(cmdline), "\x00")
	if filepath.Base(args[0]) != "dnsmasq" || !strings.Contains(string(cmdline), "/var/lib/libvirt/dnsmasq/"+network+".conf") {
		return 0
	}
	return pid
}

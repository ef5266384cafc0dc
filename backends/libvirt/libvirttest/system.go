package libvirttest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// System is a running root (system-mode) libvirtd listening on a socket
// in a directory of the test's own. Unlike a session daemon it creates
// bridges, runs dnsmasq and writes iptables rules, so networks really
// start; its state lives in the host's /etc/libvirt, /var/lib/libvirt and
// /run/libvirt, so everything a test creates must be named with Name.
type System struct {
	// URI opens the daemon's QEMU system driver through its socket.
	URI string
	// Dir holds the daemon's socket, config, pidfile and log.
	Dir string
	// Prefix starts every name Name returns ("sitetest-" and random
	// hex); Cleanup removes every domain and network starting with it.
	Prefix string
	// id is Prefix's random part; host bridges are named with it, since
	// Prefix is longer than an interface name may be.
	id string

	cmd      *exec.Cmd
	virtlogd *exec.Cmd
	log      string
	cidrs    map[string]bool // handed out by CIDR
}

// lockPath serialises system daemons across test processes: two would
// share /run/libvirt and /var/lib/libvirt.
const lockPath = "/run/lock/site-libvirttest-system.lock"

// StartSystem starts libvirtd as root in system mode with unix_sock_dir
// in a directory of its own (and virtlogd, which a root libvirtd does
// not spawn, unless one runs already), waits until its socket accepts a
// connection, and when the test ends removes the domains and networks
// named with Prefix and stops both daemons by PID. It waits for any other
// test process's system daemon to stop first.
func StartSystem(t testing.TB) *System {
	t.Helper()
	needSystem(t)
	lock := takeLock(t)
	dir, err := os.MkdirTemp("", "site-sysvirt-") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	s := &System{Dir: dir, id: hex.EncodeToString(b), log: filepath.Join(dir, "libvirtd.log")}
	s.Prefix = "sitetest-" + s.id + "-"
	sock := filepath.Join(dir, "libvirt-sock")
	s.URI = "qemu:///system?socket=" + sock
	conf := fmt.Sprintf("unix_sock_dir = %q\nauth_unix_rw = \"none\"\nauth_unix_ro = \"none\"\nlog_outputs = \"3:stderr\"\n", dir)
	if err := os.WriteFile(filepath.Join(dir, "libvirtd.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "virtlogd.conf"), []byte("log_outputs = \"3:stderr\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Cleanups run last-in first-out: the daemons stop after the
	// test's resources are removed, the directory and lock go last.
	t.Cleanup(func() {
		_ = os.RemoveAll(dir)
		lock.Close() // releases the flock
	})
	if c, err := net.Dial("unix", "/run/libvirt/virtlogd-sock"); err == nil {
		c.Close() // a virtlogd runs already: libvirtd uses it
	} else {
		s.virtlogd = s.spawn(t, "virtlogd", "-f", filepath.Join(dir, "virtlogd.conf"), "-p", filepath.Join(dir, "virtlogd.pid"))
		t.Cleanup(func() { stopCmd(s.virtlogd) })
	}
	s.cmd = s.spawn(t, "libvirtd", "-f", filepath.Join(dir, "libvirtd.conf"), "-p", filepath.Join(dir, "libvirtd.pid"))
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		terminate(s.cmd, exited)
		if t.Failed() {
			t.Logf("libvirtd log:\n%s", tail(s.log))
		}
	})
	waitForSocket(t, sock, exited, s.log)
	t.Cleanup(func() { s.removeOurs(t) })
	return s
}

// Name returns base prefixed with s.Prefix, for a domain or network the
// test creates.
func (s *System) Name(base string) string { return s.Prefix + base }

// bridgePrefix starts the name of every host bridge HostBridge makes.
func (s *System) bridgePrefix() string { return "sb" + s.id }

// HostBridge creates a Linux bridge on the host, up and without an
// address, as an operator makes br0 for a bridged network, and returns
// its name: "sb", Prefix's random part and base, at most 15 bytes (the
// kernel's limit), so base has at most 7. It is removed when the test
// ends, after the networks and domains (removeOurs).
func (s *System) HostBridge(t testing.TB, base string) string {
	t.Helper()
	name := s.bridgePrefix() + base
	if len(name) > 15 {
		t.Fatalf("host bridge name %q is longer than 15 bytes: shorten %q", name, base)
	}
	for _, args := range [][]string{{"link", "add", name, "type", "bridge"}, {"link", "set", name, "up"}} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return name
}

// CIDR returns a /24 in 10.213.0.0/16 that no interface of this machine
// has an address in and that s did not hand out before, for a network
// the test creates.
func (s *System) CIDR(t testing.TB) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	if s.cidrs == nil {
		s.cidrs = map[string]bool{}
	}
	for {
		b := make([]byte, 1)
		_, _ = rand.Read(b)
		cidr := fmt.Sprintf("10.213.%d.0/24", b[0])
		_, pfx, _ := net.ParseCIDR(cidr)
		used := s.cidrs[cidr]
		for _, a := range addrs {
			if ip, _, err := net.ParseCIDR(a.String()); err == nil && pfx.Contains(ip) {
				used = true
			}
		}
		if !used {
			s.cidrs[cidr] = true
			return cidr
		}
	}
}

// needSystem skips the test (fails it in CI) unless it runs as root on a
// machine with everything a system libvirtd needs for NAT networks.
func needSystem(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Need(t, "the system libvirtd rig runs as root (bridges, dnsmasq and iptables need it)")
	}
	for _, bin := range []string{"libvirtd", "virtlogd", "virsh", "qemu-system-x86_64", "dnsmasq", "iptables", "ip"} {
		if _, err := lookPath(bin); err != nil {
			Need(t, fmt.Sprintf("%s not found: install libvirt-daemon libvirt-clients qemu-system-x86 dnsmasq-base iptables iproute2 (--no-install-recommends)", bin))
		}
	}
	if _, err := user.Lookup("libvirt-qemu"); err != nil {
		Need(t, "no user libvirt-qemu, without which a root libvirtd exits: run make deps (or: groupadd --system libvirt-qemu && useradd --system -g libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin -M libvirt-qemu)")
	}
	if c, err := net.Dial("unix", "/run/libvirt/libvirt-sock"); err == nil {
		c.Close()
		Need(t, "the host's own system libvirtd runs (/run/libvirt/libvirt-sock): a second one would share its state; run these tests on a machine without it")
	}
}

// takeLock waits for the lock that lets one system daemon run at a time.
func takeLock(t testing.TB) *os.File {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("lock %s: %v", lockPath, err)
	}
	return f
}

// spawn starts a daemon in its own process group, its output appended to
// s.log (a file, not a pipe, so Wait never waits for its children).
func (s *System) spawn(t testing.TB, bin string, args ...string) *exec.Cmd {
	t.Helper()
	path, _ := lookPath(bin)
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(path, args...)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return cmd
}

func stopCmd(cmd *exec.Cmd) {
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	terminate(cmd, exited)
}

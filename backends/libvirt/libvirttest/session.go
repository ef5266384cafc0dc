package libvirttest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Session is a running session libvirtd, run as nobody, with all its
// state in Dir.
type Session struct {
	// URI opens the daemon's QEMU session driver through its socket.
	URI string
	// Dir holds the daemon's home, runtime, config, cache and data, and
	// the storage pool directory PoolDir. It is not a temporary
	// directory that site could use: tests may wipe TMPDIR freely.
	Dir string
	// PoolDir is the directory of the dir pool "default", writable by
	// nobody; tests define the pool with DefinePool.
	PoolDir string

	cmd *exec.Cmd
	log string // libvirtd's output, a file outside the pool
}

// StartSession starts libvirtd as nobody with real QEMU, waits until its
// socket accepts a connection, and stops it (and the virtlogd it
// spawned, both by PID) when the test ends. QEMU guests it started are
// killed with it.
func StartSession(t testing.TB) *Session {
	t.Helper()
	nobody := needRig(t)
	dir := stateDir(t, nobody)
	s := &Session{Dir: dir, PoolDir: filepath.Join(dir, "pool")}
	exited := s.start(t, nobody)
	t.Cleanup(func() { s.stop(t, exited) })
	sock := filepath.Join(dir, "run", "libvirt", "libvirt-sock")
	waitForSocket(t, sock, exited, s.log)
	s.URI = "qemu+unix:///session?socket=" + sock
	return s
}

// needRig skips the test unless it runs as root on a machine with
// libvirtd, QEMU, setpriv and virtlogd, and returns the user nobody the
// daemon runs as.
func needRig(t testing.TB) *user.User {
	t.Helper()
	if os.Geteuid() != 0 {
		Need(t, "the session libvirtd rig runs as root (it drops to nobody with setpriv)")
	}
	for _, bin := range []string{"libvirtd", "qemu-system-x86_64", "setpriv", "virtlogd"} {
		if _, err := lookPath(bin); err != nil {
			Need(t, fmt.Sprintf("%s not found: install libvirt-daemon libvirt-clients qemu-system-x86 (--no-install-recommends)", bin))
		}
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		Need(t, "no user nobody: "+err.Error())
	}
	return nobody
}

// stateDir makes the daemon's directory, owned by nobody, and removes it
// when the test ends.
func stateDir(t testing.TB, nobody *user.User) string {
	t.Helper()
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	// Not t.TempDir: its parents are root's 0700 directories, which
	// nobody cannot enter.
	dir, err := os.MkdirTemp("", "site-libvirtd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	for _, sub := range []string{"home", "run", "config", "cache", "data", "pool"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// start runs libvirtd as nobody with only s.Dir for its state, and
// returns the channel that receives its exit.
func (s *Session) start(t testing.TB, nobody *user.User) chan error {
	t.Helper()
	dir := s.Dir
	libvirtd, _ := lookPath("libvirtd")
	s.cmd = exec.Command("setpriv", "--reuid="+nobody.Uid, "--regid="+nobody.Gid, "--clear-groups",
		"env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME="+dir+"/home", "XDG_RUNTIME_DIR="+dir+"/run", "XDG_CONFIG_HOME="+dir+"/config",
		"XDG_CACHE_HOME="+dir+"/cache", "XDG_DATA_HOME="+dir+"/data", "LIBVIRT_LOG_OUTPUTS=3:stderr",
		libvirtd)
	// A file, not a pipe: virtlogd inherits it, and a pipe would keep
	// Wait from returning until virtlogd is gone too.
	s.log = filepath.Join(dir, "libvirtd.log")
	logf, err := os.Create(s.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// Its own process group, so a test binary's signals stay its own.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start libvirtd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	return exited
}

// stop kills libvirtd, then the virtlogd it spawned and any QEMU left,
// each by the PID in its pidfile.
func (s *Session) stop(t testing.TB, exited chan error) {
	pids := s.pidfiles()
	terminate(s.cmd, exited)
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(syscall.SIGKILL)
		}
	}
	if t.Failed() {
		t.Logf("libvirtd log:\n%s", tail(s.log))
	}
}

// pidfiles returns the PIDs of the daemon's virtlogd and QEMU guests.
func (s *Session) pidfiles() []int {
	var out []int
	files, _ := filepath.Glob(filepath.Join(s.Dir, "run", "libvirt", "qemu", "run", "*.pid"))
	files = append(files, filepath.Join(s.Dir, "run", "libvirt", "virtlogd.pid"))
	for _, f := range files {
		if pid, err := readPID(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// QEMUPID returns the PID of the QEMU process running domain, or 0 when
// it does not run.
func (s *Session) QEMUPID(domain string) int {
	pid, err := readPID(filepath.Join(s.Dir, "run", "libvirt", "qemu", "run", domain+".pid"))
	if err != nil {
		return 0
	}
	if syscall.Kill(pid, 0) != nil {
		return 0
	}
	return pid
}

// PoolXML is the definition of the dir pool "default" in PoolDir.
func (s *Session) PoolXML() string {
	return `<pool type="dir"><name>default</name><target><path>` + s.PoolDir + `</path></target></pool>`
}

func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

func lookPath(bin string) (string, error) {
	if p, err := exec.LookPath(bin); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin"} {
		if _, err := os.Stat(filepath.Join(d, bin)); err == nil {
			return filepath.Join(d, bin), nil
		}
	}
	return "", fmt.Errorf("%s not in PATH, /usr/sbin or /sbin", bin)
}

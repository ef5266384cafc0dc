package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// demoConfig is make demo-full's operator file.
func demoConfigFile() string { return repoFile("cmd/demo/site.cue") }

// TestDemoOperatorFile keeps make demo-full's operator file true to the
// example tenants: every tenant vets with it (each has a grant, each
// provider and host it names exists), and sjc's graph has everything the
// demo brings up from nothing in one apply: the secret for Cloudflare,
// the pool and the base image the keys VM's disk starts from, the
// network and the VM, then the zone.
func TestDemoOperatorFile(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	var out, errOut bytes.Buffer
	demoConfig := demoConfigFile()
	if code := run([]string{"vet", "--config", demoConfig, repoFile("tenants") + "/..."}, &out, &errOut); code != exitOK {
		t.Fatalf("site vet --config %s tenants/...: exit %d\n%s%s", demoConfig, code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"graph", "--config", demoConfig, repoFile("tenants/sjc.cue")}, &out, &errOut); code != exitOK {
		t.Fatalf("site graph: exit %d\n%s", code, errOut.String())
	}
	for _, step := range []string{
		`"secret/bao/dns/cloudflare#token"`,
		`"pool/qemu:///system/default"`,
		`"image/qemu:///system/default/debian-12.qcow2"`,
		`"network/qemu:///system/sjc-lan"`,
		`"vm/qemu:///system/keys"`,
		`"dns/sjc.example.net."`,
	} {
		if !strings.Contains(out.String(), step+" [label") {
			t.Errorf("site graph --config %s tenants/sjc.cue has no step %s:\n%s", demoConfig, step, out.String())
		}
	}
}

// TestDemoStateDirMatches: the scripts of make demo-full keep their state
// in the directory env.sh names, and site.cue's pool and image source
// (absolute paths, so written out) must be in it: otherwise the demo
// uploads an image from where mkbootimage never wrote one, and
// demo-stop leaves the pool's directory behind.
func TestDemoStateDirMatches(t *testing.T) {
	demoConfig := demoConfigFile()
	env, err := os.ReadFile(repoFile("cmd/demo/env.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^STATE=(\S+)$`).FindSubmatch(env)
	if m == nil {
		t.Fatal("cmd/demo/env.sh sets no STATE=")
	}
	state := string(m[1])
	site, err := os.ReadFile(demoConfig)
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile(`(?:path|source):\s*"(/[^"]+)"`).FindAllSubmatch(site, -1)
	if len(paths) != 2 {
		t.Fatalf("%s: found %d pool paths and image sources, want 2 (the pool and debian-12.qcow2)", demoConfig, len(paths))
	}
	for _, p := range paths {
		if !strings.HasPrefix(string(p[1]), state+"/") {
			t.Errorf("%s: %s is not under the demo's state %s (cmd/demo/env.sh)", demoConfig, p[1], state)
		}
	}
}

// TestDemoVMStopOnlyOwn: make demo-vm's session libvirtd lives in a
// fixed directory every checkout on the machine shares, so make
// demo-stop stops it, and removes the directory, only in the checkout
// that started it; elsewhere it leaves both and says so. The daemon is a
// sleep here, in a directory of the test's own (DEMO_LV).
func TestDemoVMStopOnlyOwn(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not installed")
	}
	root, err := filepath.EvalSymlinks(repoFile(""))
	if err != nil {
		t.Fatal(err)
	}
	lv := filepath.Join(t.TempDir(), "lv")
	if err := os.MkdirAll(lv, 0o755); err != nil {
		t.Fatal(err)
	}
	daemon := exec.Command("sleep", "600")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- daemon.Wait() }()
	t.Cleanup(func() { daemon.Process.Kill() })
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(lv, name), []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("libvirtd.pid", strconv.Itoa(daemon.Process.Pid))
	stop := func() string {
		t.Helper()
		out, err := exec.Command("make", "-s", "-C", root, "demo-vm-stop", "DEMO_LV="+lv).CombinedOutput()
		if err != nil {
			t.Fatalf("make demo-vm-stop: %v\n%s", err, out)
		}
		return string(out)
	}

	for _, other := range []string{"/elsewhere/site", ""} { // another checkout's, and one of before checkouts were recorded
		if other != "" {
			write("checkout", other)
		}
		out := stop()
		if _, err := os.Stat(lv); err != nil {
			t.Fatalf("started in %q: make demo-vm-stop in %s removed %s: %v\n%s", other, root, lv, err, out)
		}
		if err := daemon.Process.Signal(syscall.Signal(0)); err != nil {
			t.Fatalf("started in %q: make demo-vm-stop in %s stopped its daemon: %v\n%s", other, root, err, out)
		}
		if !strings.Contains(out, "not stopped") || !strings.Contains(out, "kill "+strconv.Itoa(daemon.Process.Pid)) {
			t.Errorf("started in %q: make demo-vm-stop says %q; want that it is not stopped and how to stop it", other, out)
		}
		if other != "" && !strings.Contains(out, other) {
			t.Errorf("make demo-vm-stop says %q; want the checkout that started it, %s", out, other)
		}
	}

	write("checkout", root)
	out := stop()
	<-exited // the daemon of this checkout is stopped
	if _, err := os.Stat(lv); !os.IsNotExist(err) {
		t.Errorf("make demo-vm-stop in the checkout that started it left %s (%v)\n%s", lv, err, out)
	}
	if !strings.Contains(out, "libvirtd session stopped") {
		t.Errorf("make demo-vm-stop says %q; want that it stopped the session", out)
	}
}

// TestDemoFullStopOnlyOwn: make demo-full keeps its state in a fixed
// directory every checkout on the machine shares, as make demo-vm does,
// so cmd/demo/stop.sh (make demo-stop's part for it) stops its services
// and removes the directory only in the checkout that started it;
// elsewhere it leaves both, says so, and says how to stop them anyway.
// The services are sleeps here, in a directory of the test's own
// (DEMO_STATE), with no libvirtd.conf: the demo's libvirtd never set up,
// so nothing of it is asked of libvirt.
func TestDemoFullStopOnlyOwn(t *testing.T) {
	root, err := filepath.EvalSymlinks(repoFile(""))
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "demo-full")
	if err := os.MkdirAll(filepath.Join(state, "libvirt"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(state, name), []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type service struct {
		pidfile string
		proc    *os.Process
		exited  chan error
	}
	var services []service
	for _, pidfile := range []string{"vault.pid", "cfserver.pid", "libvirt/libvirtd.pid"} {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		s := service{pidfile, cmd.Process, make(chan error, 1)}
		go func() { s.exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
		write(pidfile, strconv.Itoa(cmd.Process.Pid))
		services = append(services, s)
	}
	stop := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("sh", append([]string{repoFile("cmd/demo/stop.sh")}, args...)...)
		cmd.Env = append(os.Environ(), "DEMO_STATE="+state)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("stop.sh %q: %v\n%s", args, err, out)
		}
		return string(out)
	}

	for _, other := range []string{"/elsewhere/site", ""} { // another checkout's, and one of before checkouts were recorded
		if other != "" {
			write("checkout", other)
		}
		out := stop()
		if _, err := os.Stat(state); err != nil {
			t.Fatalf("started in %q: stop.sh in %s removed %s: %v\n%s", other, root, state, err, out)
		}
		for _, s := range services {
			if err := s.proc.Signal(syscall.Signal(0)); err != nil {
				t.Fatalf("started in %q: stop.sh in %s stopped the process of %s: %v\n%s", other, root, s.pidfile, err, out)
			}
		}
		if !strings.Contains(out, "not stopped") || !strings.Contains(out, "stop.sh --any") {
			t.Errorf("started in %q: stop.sh says %q; want that it is not stopped and how to stop it", other, out)
		}
		if other != "" && !strings.Contains(out, other) {
			t.Errorf("stop.sh says %q; want the checkout that started it, %s", out, other)
		}
	}

	write("checkout", root)
	out := stop()
	// stop.sh removes the state after its services are gone; one that
	// left it stopped nothing to wait for.
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("stop.sh in the checkout that started it left %s (%v)\n%s", state, err, out)
	}
	for _, s := range services {
		<-s.exited // each service of this checkout is stopped
	}
	for _, want := range []string{"libvirtd stopped", "Cloudflare fake stopped", "Vault dev server stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("stop.sh says %q; want %q", out, want)
		}
	}
}

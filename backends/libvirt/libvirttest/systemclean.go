package libvirttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// removeOurs destroys and undefines every domain and network named with
// s.Prefix, whatever state the test left them in, then removes the files
// libvirt leaves behind for them (also for those the test removed
// itself): QEMU logs and network runtime files.
func (s *System) removeOurs(t testing.TB) {
	for _, name := range s.virshNames("list", "--all", "--name") {
		s.virsh("destroy", name)
		s.virsh("undefine", name)
	}
	var netBridges []string
	for _, name := range s.virshNames("net-list", "--all", "--name") {
		if br := s.netBridge(name); br != "" && !strings.HasPrefix(br, s.bridgePrefix()) {
			netBridges = append(netBridges, br)
		}
		s.virsh("net-destroy", name)
		s.virsh("net-undefine", name)
	}
	waitBridgesGone(t, netBridges)
	s.removePools()
	if left := append(s.virshNames("list", "--all", "--name"), s.virshNames("net-list", "--all", "--name")...); len(left) > 0 {
		t.Errorf("the system libvirtd still has %v after cleanup", left)
	}
	// Host bridges go after the networks on them.
	bridges, _ := filepath.Glob(filepath.Join("/sys/class/net", s.bridgePrefix()+"*"))
	for _, b := range bridges {
		if out, err := exec.Command("ip", "link", "del", filepath.Base(b)).CombinedOutput(); err != nil {
			t.Errorf("remove host bridge %s: %v: %s", filepath.Base(b), err, out)
		}
	}
	for _, dir := range []string{"/var/log/libvirt/qemu", "/run/libvirt/network"} {
		files, _ := filepath.Glob(filepath.Join(dir, s.Prefix+"*"))
		for _, f := range files {
			_ = os.RemoveAll(f)
		}
	}
}

// netBridge is the bridge device of network name: libvirt's own, or the
// host bridge of a bridge-mode network.
func (s *System) netBridge(name string) string {
	out, err := s.virshOut("net-info", name)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "Bridge:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// waitBridgesGone waits until the bridges of destroyed networks have left
// the kernel, removing any that stays: libvirt names a new network's
// bridge after the first free virbrN it knows of, and the next test's
// network failed with "creating bridge interface virbr0: File exists"
// while the last one's was still going away.
func waitBridgesGone(t testing.TB, bridges []string) {
	for _, br := range bridges {
		if strings.ContainsAny(br, "/.") {
			continue
		}
		dev := filepath.Join("/sys/class/net", br)
		for i := 0; i < 50; i++ {
			if _, err := os.Stat(dev); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if _, err := os.Stat(dev); err == nil {
			if out, err := exec.Command("ip", "link", "del", br).CombinedOutput(); err != nil {
				t.Errorf("bridge %s of a destroyed network stays: ip link del: %v: %s", br, err, out)
			}
		}
	}
}

package libvirttest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TakeLease makes the host a DHCP client of the network on bridge: a
// veth pair with one end on the bridge and the other in a network
// namespace of its own, where busybox udhcpc asks libvirt's dnsmasq for
// an address. It returns the client's MAC once udhcpc got a lease, and
// removes the namespace and the pair when the test ends.
func (s *System) TakeLease(t testing.TB, bridge string) string {
	t.Helper()
	ns, guest, mac := s.dhcpClient(t, bridge)
	udhcpc(t, ns, guest)
	return mac
}

// TakeLeases is TakeLease for a guest that asks n times, each time as
// another DHCP client by a client identifier of its choosing (option
// 61), as any guest can: dnsmasq keeps a lease for each, all on the
// one MAC, which it returns.
func (s *System) TakeLeases(t testing.TB, bridge string, n int) string {
	t.Helper()
	ns, guest, mac := s.dhcpClient(t, bridge)
	for i := range n {
		udhcpc(t, ns, guest, "-C", "-x", fmt.Sprintf("0x3d:ff%08x", i))
	}
	return mac
}

// dhcpClient makes the namespace and veth pair a DHCP client of the
// network on bridge asks from, and returns the namespace, the
// interface in it and its MAC.
func (s *System) dhcpClient(t testing.TB, bridge string) (ns, guest, mac string) {
	t.Helper()
	if _, err := lookPath("busybox"); err != nil {
		Need(t, "busybox not found (its udhcpc takes a real DHCP lease): install busybox")
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	id := "st" + hex.EncodeToString(b) // interface names are at most 15 bytes
	ns, host, guest := s.Prefix+id, id+"h", id+"g"
	run(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	run(t, "ip", "link", "add", host, "type", "veth", "peer", "name", guest)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", host).Run() })
	run(t, "ip", "link", "set", host, "master", bridge, "up")
	run(t, "ip", "link", "set", guest, "netns", ns)
	run(t, "ip", "-n", ns, "link", "set", guest, "up")
	out := run(t, "ip", "-n", ns, "-o", "link", "show", guest)
	f := strings.Fields(out[strings.Index(out, "link/ether"):])
	return ns, guest, f[1]
}

// udhcpc asks for a lease on iface in namespace ns, with more udhcpc
// arguments, and returns once it has one.
func udhcpc(t testing.TB, ns, iface string, more ...string) {
	t.Helper()
	busybox, _ := lookPath("busybox")
	run(t, append([]string{"ip", "netns", "exec", ns, busybox, "udhcpc", "-i", iface, "-f", "-q", "-n", "-t", "10", "-T", "1", "-s", "/bin/true"}, more...)...)
}

// run runs a command the test needs, failing it with the output.
func run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

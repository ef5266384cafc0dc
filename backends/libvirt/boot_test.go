//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// bootRig is systemRig whose new domains run under TCG (domain type
// qemu). The /dev/kvm of this machine and of CI is a nested hypervisor
// (kvm-pvm) that runs only paravirtualised guest kernels: a stock
// kernel's setup code runs, then the guest hangs when it enters
// protected mode, and syslinux stops at an emulation failure. TCG boots
// the same image in about half a minute.
func bootRig(t *testing.T) (*rig, *libvirttest.System) {
	t.Helper()
	return systemRigWith(t, map[string]string{DomainTypeEnv: "qemu"})
}

// bootedVM is a VM on the rig's host that boots the test boot image: its
// disk is a volume uploaded from it into a pool of the test's own, its
// NIC is on network lan, and its seed carries its name as
// local-hostname.
func bootedVM(t *testing.T, r *rig, s *libvirttest.System, lan string) *model.VM {
	t.Helper()
	img := libvirttest.BootImage(t)
	pool, _ := s.Pool(t, "pool")
	vm := r.vm(s.Name("guest"))
	vm.MemoryBytes = 128 << 20
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	// The disk exists before the first apply, so site uses it as it is
	// (a disk of the declared size that exists is never recreated).
	vm.Disks = []model.Disk{{Pool: pool, Name: vm.Name + "-root", SizeBytes: uint64(fi.Size())}}
	s.Upload(t, pool, vm.Disks[0].Name, img)
	vm.NICs = []model.NIC{{Network: lan}}
	vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"}
	return vm
}

// guestLease is one DHCP lease of a network as libvirt reports it.
type guestLease struct{ IP, MAC, Hostname string }

// waitGuestLease polls the network's DHCP leases (virNetworkGetDHCPLeases)
// until one is for mac, and returns it. A guest that never asks ends the
// wait after five minutes with the leases seen and QEMU's log.
func waitGuestLease(t *testing.T, r *rig, network, mac, domain string) guestLease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var seen []guestLease
	for {
		seen = networkLeases(t, r, network)
		for _, l := range seen {
			if strings.EqualFold(l.MAC, mac) {
				return l
			}
		}
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join("/var/log/libvirt/qemu", domain+".log"))
			t.Fatalf("no DHCP lease for %s on %s after 5 minutes; leases %+v; QEMU log:\n%s", mac, network, seen, log)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TestSystemGuestBoots: a VM that site creates from the model on a real
// system daemon boots the boot image, reads its NoCloud seed (the DHCP
// lease carries the hostname, which only the seed's meta-data holds)
// and takes a lease on its NAT network. An autostart-only change and a
// memory change then keep the same QEMU process, and the guest's
// balloon driver carries the live memory change out. Driver.Lease, which
// publish address "lease" reads, finds the same lease. The lease is the
// address the NIC reserves (dnsmasq, running as nobody, must be able to
// read libvirt's hosts file: under a umask of 077 it silently was not).
// Last, the network the running guest holds a lease on is not destroyed
// for a mode change, even with its gate.
func TestSystemGuestBoots(t *testing.T) {
	r, s := bootRig(t)
	lan := &model.Network{Tenant: tenant, Name: s.Name("lan"), Host: r.host, CIDR: s.CIDR(t)}
	vm := bootedVM(t, r, s, lan.Name)
	reserved := strings.TrimSuffix(lan.CIDR, "0/24") + "13"
	vm.NICs[0].Address = reserved
	r.converge(r.graph([]*model.VM{vm}, []*model.Network{lan}))

	dom := r.domain(vm.Name)
	if !dom.Running || len(dom.Live.Devices.Interfaces) != 1 || dom.Live.Devices.Interfaces[0].MAC == nil {
		t.Fatalf("guest: running=%v interfaces=%+v, want it running with one NIC", dom.Running, dom.Live.Devices.Interfaces)
	}
	mac := dom.Live.Devices.Interfaces[0].MAC.Address
	l := waitGuestLease(t, r, lan.Name, mac, vm.Name)
	if l.Hostname != vm.Name {
		t.Fatalf("lease %+v: hostname %q, want %q from the seed's meta-data", l, l.Hostname, vm.Name)
	}
	if l.IP != reserved {
		t.Errorf("lease address %s, want %s, the address the NIC reserves", l.IP, reserved)
	}
	// What publish address "lease" reads: the same lease, found from
	// the running domain's MAC; none for a domain that is not there.
	for _, tc := range []struct {
		vm, want string
	}{{vm.Name, l.IP}, {s.Name("absent"), ""}} {
		got, err := r.d.Lease(context.Background(), model.LeaseRef{Host: r.host, VM: tc.vm, Tenant: tenant})
		if err != nil || got != tc.want {
			t.Errorf("Lease(%s): got %q, %v, want %q", tc.vm, got, err, tc.want)
		}
	}
	pid := s.QEMUPID(vm.Name)
	if pid == 0 {
		t.Fatal("no QEMU process for the guest")
	}

	for _, step := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"autostart", func() { vm.Autostart = true }, []string{"live update vm/" + r.host + "/" + vm.Name + " [autostart]"}},
		{"memory", func() { vm.MemoryBytes = 96 << 20 }, []string{
			"next-boot update vm/" + r.host + "/" + vm.Name + " [memory]",
			"live update vm/" + r.host + "/" + vm.Name + " [current memory]",
		}},
	} {
		step.change()
		g := r.graph([]*model.VM{vm}, []*model.Network{lan})
		obs, run := r.diff(g)
		if got := lines(obs.Plan); !slices.Equal(got, step.want) {
			t.Fatalf("%s: got plan %q, want %q", step.name, got, step.want)
		}
		r.apply(g, obs, run)
		if got := s.QEMUPID(vm.Name); got != pid {
			t.Fatalf("%s: QEMU PID %d -> %d, want the guest left running", step.name, pid, got)
		}
	}
	if d := r.domain(vm.Name); !d.Autostart {
		t.Error("autostart not set")
	}
	wantBalloon(t, s, vm.Name, 96<<10)
	if again := waitGuestLease(t, r, lan.Name, mac, vm.Name); again.IP != l.IP {
		t.Errorf("lease %s -> %s, want the guest's lease kept", l.IP, again.IP)
	}
	wantNetworkKeptForGuest(t, r, s, vm, lan, mac)
}

// wantNetworkKeptForGuest asks for a mode change of lan (a destroy and
// recreate) while vm runs on it holding its lease: the plan refuses it
// naming the guest, and applying with GATE-NET-DESTROY leaves the
// network, the guest's QEMU process and its lease as they were.
func wantNetworkKeptForGuest(t *testing.T, r *rig, s *libvirttest.System, vm *model.VM, lan *model.Network, mac string) {
	t.Helper()
	pid := s.QEMUPID(vm.Name)
	lease := waitGuestLease(t, r, lan.Name, mac, vm.Name)
	lan.Mode = model.NetIsolated
	g := r.graph([]*model.VM{vm}, []*model.Network{lan})
	obs, run := r.diff(g)
	// The memory change above stays pending until the guest's next
	// boot; the network's line is the one this asks about.
	want := "refused update network/" + r.host + "/" + lan.Name + " [in use,network]"
	got := lines(obs.Plan)
	i := slices.Index(got, want)
	if i < 0 {
		t.Fatalf("mode change under a running guest: got plan %q, want %q among it", got, want)
	}
	if users, _ := obs.Plan.Changes[i].Before["in use"].([]string); !slices.Equal(users, []string{vm.Name}) {
		t.Errorf("got users %v, want [%s]", users, vm.Name)
	}
	r.apply(g, obs, run, plan.GateNetDestroy)
	if ln, _ := r.network(lan.Name); !ln.Active || ln.Def.Forward == nil || ln.Def.Forward.Mode != "nat" {
		t.Errorf("the refused mode change was written: active %v forward %+v", ln.Active, ln.Def.Forward)
	}
	if got := s.QEMUPID(vm.Name); got != pid {
		t.Errorf("QEMU PID %d -> %d, want the guest left running", pid, got)
	}
	if again := waitGuestLease(t, r, lan.Name, mac, vm.Name); again.IP != lease.IP {
		t.Errorf("lease %s -> %s, want it kept", lease.IP, again.IP)
	}
}

// wantBalloon waits until the guest's balloon driver reports kib as its
// actual memory (virsh dommemstat), which only a guest that runs and
// loaded the driver does.
func wantBalloon(t *testing.T, s *libvirttest.System, domain string, kib int) {
	t.Helper()
	want := fmt.Sprintf("actual %d", kib)
	var out string
	for i := 0; i < 600; i++ {
		out, _ = s.Virsh("dommemstat", domain)
		if strings.Contains(out, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("dommemstat %s: got\n%s\nwant %q", domain, out, want)
}

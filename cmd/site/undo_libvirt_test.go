//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// undoLab is a tenant lab on a real system libvirtd: a network and a
// VM that is never started (no boot needed: memory, vcpus and the
// network's fields live in their definitions).
type undoLab struct {
	s       *libvirttest.System
	file    string
	vm, lan string
	pool    string
	cidrs   [2]string
	withVM  bool
}

// undoSpec is what a version of lab's spec sets (no VM without
// Memory).
type undoSpec struct {
	Memory    string
	VCPUs     int
	CIDR      string
	Mode      string
	Autostart bool
	Running   bool
}

func newUndoLab(t *testing.T, withVM bool) *undoLab {
	t.Helper()
	if err := libvirt.Available(); err != nil {
		libvirttest.Need(t, err.Error())
	}
	s := libvirttest.StartSystem(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///system="+s.URI)
	t.Setenv(libvirt.DomainTypeEnv, "qemu")
	t.Setenv("NO_COLOR", "1")
	l := &undoLab{s: s, vm: s.Name("web"), lan: s.Name("lan"), withVM: withVM, cidrs: [2]string{s.CIDR(t), s.CIDR(t)}}
	if withVM {
		l.pool, _ = s.Pool(t, "pool")
	}
	site := siteSrc(`hosts: kvm: uri: "qemu:///system"`, grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"kvm"}})
	l.file = writeSpec(t, site, "lab.cue", l.spec(undoSpec{Memory: "128MiB", VCPUs: 1, CIDR: l.cidrs[0], Mode: "nat"}))
	return l
}

func (l *undoLab) spec(v undoSpec) string {
	src := fmt.Sprintf(`package tenants

tenants: lab: {
	domain: "lab.example.test"
	networks: %q: {host: "kvm", mode: %q, cidr: %q, autostart: %v}
`, l.lan, v.Mode, v.CIDR, v.Autostart)
	if l.withVM && v.Memory != "" {
		src += fmt.Sprintf(`	vms: %q: {
		host:      "kvm"
		autostart: false
		running:   %v
		vcpus:     %d
		memory:    %q
		disks: [{pool: %q, name: %q, size: "16MiB"}]
		nics: [{network: %q}]
	}
`, l.vm, v.Running, v.VCPUs, v.Memory, l.pool, l.vm+"-root", l.lan)
	}
	return src + "}\n"
}

// write makes v lab's spec.
func (l *undoLab) write(t *testing.T, v undoSpec) {
	t.Helper()
	if err := os.WriteFile(l.file, []byte(l.spec(v)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// site runs site and returns its exit code and output.
func (l *undoLab) site(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustSite runs site and fails the test unless it exits 0.
func (l *undoLab) mustSite(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := l.site(args...)
	if code != exitOK {
		t.Fatalf("site %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// domainFields are the memory and vCPU elements of the VM's persistent
// definition, as virsh shows it.
func (l *undoLab) domainFields(t *testing.T) string {
	t.Helper()
	return l.domainXMLFields(t, "--inactive")
}

// domainXMLFields are the memory and vCPU elements of the VM's
// definition virsh dumpxml shows with flags (the running guest's
// without).
func (l *undoLab) domainXMLFields(t *testing.T, flags ...string) string {
	t.Helper()
	x, err := l.s.Virsh(append(append([]string{"dumpxml"}, flags...), l.vm)...)
	if err != nil {
		t.Fatal(err)
	}
	var d libvirtxml.Domain
	if err := d.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("memory %d %s, current %d %s, vcpu %d current %d", d.Memory.Value, d.Memory.Unit,
		d.CurrentMemory.Value, d.CurrentMemory.Unit, d.VCPU.Value, d.VCPU.Current)
}

// networkFields are the forward mode and addresses (with their DHCP
// ranges) of the network's persistent definition, and its autostart.
func (l *undoLab) networkFields(t *testing.T) string {
	t.Helper()
	x, err := l.s.Virsh("net-dumpxml", "--inactive", l.lan)
	if err != nil {
		t.Fatal(err)
	}
	var n libvirtxml.Network
	if err := n.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	out := "forward none"
	if n.Forward != nil {
		out = "forward " + n.Forward.Mode
	}
	for _, ip := range n.IPs {
		out += fmt.Sprintf("; ip %s/%d", ip.Address, ip.Prefix)
		if ip.DHCP != nil {
			for _, r := range ip.DHCP.Ranges {
				out += " dhcp " + r.Start + "-" + r.End
			}
		}
	}
	info, err := l.s.Virsh("net-info", l.lan)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "Autostart:" {
			out += "; autostart " + f[1]
		}
	}
	return out
}

// TestUndo_VMFieldsAndNetworkCIDRBackOnLibvirt: an apply that raises a
// VM's memory and vCPUs and moves its network to another prefix is
// undone on a real libvirtd: the domain's and the network's persistent
// definitions have those fields as before the apply, and site history
// lists the undo.
func TestUndo_VMFieldsAndNetworkCIDRBackOnLibvirt(t *testing.T) {
	l := newUndoLab(t, true)
	l.mustSite(t, "apply", "--yes", l.file)
	dom, nw := l.domainFields(t), l.networkFields(t)

	l.write(t, undoSpec{Memory: "256MiB", VCPUs: 2, CIDR: l.cidrs[1], Mode: "nat"})
	l.mustSite(t, "apply", "--yes", l.file)
	if got := l.domainFields(t); got == dom {
		t.Fatalf("apply v2 left the domain as it was: %s", got)
	}
	if got := l.networkFields(t); got == nw {
		t.Fatalf("apply v2 left the network as it was: %s", got)
	}

	out := l.mustSite(t, "undo", "--yes", l.file)
	for _, want := range []string{"vm/qemu:///system/" + l.vm, "network/qemu:///system/" + l.lan} {
		if !strings.Contains(out, want) {
			t.Errorf("the undo's plan does not show %s:\n%s", want, out)
		}
	}
	if got := l.domainFields(t); got != dom {
		t.Errorf("domain after the undo: %s\nwant as before the apply: %s", got, dom)
	}
	if got := l.networkFields(t); got != nw {
		t.Errorf("network after the undo: %s\nwant as before the apply: %s", got, nw)
	}
	if out := l.mustSite(t, "history", l.file); len(historyIDs(out)) != 3 || !strings.Contains(out, "(undoes ") {
		t.Errorf("history after the undo, want 3 entries, the newest an undo:\n%s", out)
	}
}

// TestUndo_NetworkFieldsModeAndAutostartBackOnLibvirt: an apply that
// turns a NAT network isolated (recreated behind GATE-NET-DESTROY) and
// autostarted is undone on a real libvirtd: the undo's recreation
// waits for its own --ack, as apply's does, and then the network's
// definition and autostart are as before the apply.
func TestUndo_NetworkFieldsModeAndAutostartBackOnLibvirt(t *testing.T) {
	l := newUndoLab(t, false)
	l.mustSite(t, "apply", "--yes", l.file)
	nw := l.networkFields(t)

	l.write(t, undoSpec{CIDR: l.cidrs[0], Mode: "isolated", Autostart: true})
	l.mustSite(t, "apply", "--yes", "--ack", "GATE-NET-DESTROY", l.file)
	if got := l.networkFields(t); got == nw || !strings.Contains(got, "forward none") || !strings.Contains(got, "autostart yes") {
		t.Fatalf("apply v2: network %s, want isolated and autostarted", got)
	}

	code, out, errOut := l.site("undo", "--yes", l.file)
	if code != exitGated || !strings.Contains(errOut, "GATE-NET-DESTROY") {
		t.Fatalf("undo without the gate's --ack: exit %d, want %d naming GATE-NET-DESTROY\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	l.mustSite(t, "undo", "--yes", "--ack", "GATE-NET-DESTROY", l.file)
	if got := l.networkFields(t); got != nw {
		t.Errorf("network after the undo: %s\nwant as before the apply: %s", got, nw)
	}
}

// TestUndo_RefusesVMChangedSince: a VM field the undo would put back
// that someone changed by hand since the apply refuses the whole undo,
// naming the VM, the field and both values, and changes nothing.
func TestUndo_RefusesVMChangedSince(t *testing.T) {
	l := newUndoLab(t, true)
	l.mustSite(t, "apply", "--yes", l.file)
	l.write(t, undoSpec{Memory: "256MiB", VCPUs: 2, CIDR: l.cidrs[0], Mode: "nat"})
	l.mustSite(t, "apply", "--yes", l.file)
	if _, err := l.s.Virsh("setvcpus", l.vm, "3", "--config", "--maximum"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.s.Virsh("setvcpus", l.vm, "3", "--config"); err != nil {
		t.Fatal(err)
	}
	dom, nw := l.domainFields(t), l.networkFields(t)
	code, out, errOut := l.site("undo", "--yes", l.file)
	want := "vm/qemu:///system/" + l.vm + ": vcpus: the apply left 2, live is 3"
	if code != exitError || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("undo of a VM changed since: exit %d, want 1 saying %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	if got := l.domainFields(t); got != dom {
		t.Errorf("a refused undo changed the domain: %s, was %s", got, dom)
	}
	if got := l.networkFields(t); got != nw {
		t.Errorf("a refused undo changed the network: %s, was %s", got, nw)
	}
}

// TestUndo_VMCreatedIsRemovedBehindItsGate: the undo of an apply that
// created a VM removes it, as the removal of a VM the spec no longer
// declares: behind GATE-VM-DESTROY, with the volume site made for it.
// That undo removed a VM, so undoing it in turn is refused: its disk's
// data is gone.
func TestUndo_VMCreatedIsRemovedBehindItsGate(t *testing.T) {
	l := newUndoLab(t, true)
	l.write(t, undoSpec{CIDR: l.cidrs[0], Mode: "nat"})
	l.mustSite(t, "apply", "--yes", l.file)
	l.write(t, undoSpec{Memory: "128MiB", VCPUs: 1, CIDR: l.cidrs[0], Mode: "nat"})
	l.mustSite(t, "apply", "--yes", l.file)
	if _, err := l.s.Virsh("dominfo", l.vm); err != nil {
		t.Fatalf("apply v2 did not create the VM: %v", err)
	}

	code, out, errOut := l.site("undo", "--yes", l.file)
	if code != exitGated || !strings.Contains(errOut, "GATE-VM-DESTROY") {
		t.Fatalf("undo without the gate's --ack: exit %d, want %d naming GATE-VM-DESTROY\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	if _, err := l.s.Virsh("dominfo", l.vm); err != nil {
		t.Fatalf("an undo stopped by its gate removed the VM: %v", err)
	}
	l.mustSite(t, "undo", "--yes", "--ack", "GATE-VM-DESTROY", l.file)
	if _, err := l.s.Virsh("dominfo", l.vm); err == nil {
		t.Errorf("the VM the undone apply created is still defined")
	}
	if vols, err := l.s.Virsh("vol-list", l.pool); err != nil || strings.Contains(vols, l.vm+"-root") {
		t.Errorf("the volume site made for the VM is still in pool %s: %v\n%s", l.pool, err, vols)
	}

	code, out, errOut = l.site("undo", "--yes", "--ack", "GATE-VM-DESTROY", l.file)
	if code != exitError || !strings.Contains(errOut, "the apply removed this VM") || !strings.Contains(errOut, "data is gone") {
		t.Errorf("undo of the undo that removed the VM: exit %d, want 1 saying its data is gone\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestUndo_NetworkCreatedWithItsVM: the undo of an apply that created a
// network and a VM on it removes the VM; the network, in use by the VM
// while the undo was planned, is refused for now, as any removal of a
// network in use is, and the same undo run again removes it. A network
// the apply did not touch stays.
func TestUndo_NetworkCreatedWithItsVM(t *testing.T) {
	l := newUndoLab(t, true)
	keep := l.s.Name("keep")
	keepSrc := fmt.Sprintf("\tnetworks: %q: {host: \"kvm\", mode: \"nat\", cidr: %q, autostart: false}\n", keep, l.cidrs[1])
	withKeep := func(src string) string {
		return strings.Replace(src, "tenants: lab: {\n", "tenants: lab: {\n"+keepSrc, 1)
	}
	v1 := withKeep("package tenants\n\ntenants: lab: {\n\tdomain: \"lab.example.test\"\n}\n")
	if err := os.WriteFile(l.file, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	l.mustSite(t, "apply", "--yes", l.file)
	if err := os.WriteFile(l.file, []byte(withKeep(l.spec(undoSpec{Memory: "128MiB", VCPUs: 1, CIDR: l.cidrs[0], Mode: "nat"}))), 0o644); err != nil {
		t.Fatal(err)
	}
	l.mustSite(t, "apply", "--yes", l.file)
	_, hist, _ := l.site("history", l.file)
	ids := historyIDs(hist)
	if len(ids) != 2 {
		t.Fatalf("history lists %d entries, want 2:\n%s", len(ids), hist)
	}
	undo := []string{"undo", "--id", strings.TrimSpace(ids[0]), "--yes", "--ack", "GATE-VM-DESTROY", "--ack", "GATE-NET-DESTROY", l.file}
	out := l.mustSite(t, undo...)
	if !strings.Contains(out, "refused for now: in use") {
		t.Errorf("the first undo does not say the network is in use:\n%s", out)
	}
	if _, err := l.s.Virsh("dominfo", l.vm); err == nil {
		t.Errorf("the VM the undone apply created is still defined")
	}
	if _, err := l.s.Virsh("net-info", l.lan); err != nil {
		t.Errorf("the network in use was removed by the first undo: %v", err)
	}
	l.mustSite(t, undo...)
	if _, err := l.s.Virsh("net-info", l.lan); err == nil {
		t.Errorf("the network the undone apply created is still defined after the second undo")
	}
	if _, err := l.s.Virsh("net-info", keep); err != nil {
		t.Errorf("the network the apply did not touch is gone: %v", err)
	}
}

// TestUndo_VMFieldsRestartGatedOnLibvirt: undoing a memory change of a
// running guest is an ordinary plan for it: written to its persistent
// definition, and with --restart the guest's restart waits for its own
// GATE-VM-RESTART; acknowledged, the running guest has the memory it
// had before the apply again. (The guest boots nothing: a blank disk
// keeps its firmware running, which is all a restart needs.)
func TestUndo_VMFieldsRestartGatedOnLibvirt(t *testing.T) {
	l := newUndoLab(t, true)
	t.Setenv(libvirt.ShutdownTimeoutEnv, "1s") // nothing in the guest honours a shutdown
	l.write(t, undoSpec{Memory: "128MiB", VCPUs: 1, CIDR: l.cidrs[0], Mode: "nat", Running: true})
	l.mustSite(t, "apply", "--yes", l.file)
	dom, live := l.domainFields(t), l.domainXMLFields(t)
	l.write(t, undoSpec{Memory: "256MiB", VCPUs: 1, CIDR: l.cidrs[0], Mode: "nat", Running: true})
	l.mustSite(t, "apply", "--yes", "--restart", "lab/"+l.vm, "--ack", "GATE-VM-RESTART", l.file)
	changed := l.domainXMLFields(t)
	if changed == live {
		t.Fatalf("apply v2 with --restart left the running guest as it was: %s", changed)
	}

	code, out, errOut := l.site("undo", "--yes", "--restart", "lab/"+l.vm, l.file)
	if code != exitGated || !strings.Contains(errOut, "GATE-VM-RESTART") {
		t.Fatalf("undo --restart without the gate's --ack: exit %d, want %d naming GATE-VM-RESTART\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	if got := l.domainXMLFields(t); got != changed {
		t.Errorf("an undo stopped by its gate changed the running guest: %s, was %s", got, changed)
	}
	l.mustSite(t, "undo", "--yes", "--restart", "lab/"+l.vm, "--ack", "GATE-VM-RESTART", l.file)
	if got := l.domainFields(t); got != dom {
		t.Errorf("definition after the undo: %s\nwant as before the apply: %s", got, dom)
	}
	if got := l.domainXMLFields(t); got != live {
		t.Errorf("running guest after the undo: %s\nwant as before the apply: %s", got, live)
	}
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Procedure numbers of libvirt's remote protocol (remote_protocol.x),
// for the calls holdingProxy holds.
const (
	remoteProgram          = 0x20008086
	procDomainDefineXML    = 11
	procDomainLookupByName = 23
	procDomainUndefine     = 35
	procPoolDefineXML      = 77
	procPoolCreate         = 78
	procPoolBuild          = 79
	procPoolSetAutostart   = 90
	procVolCreateXML       = 93
	procVolDelete          = 94
	rpcHeaderBytes         = 4 * 7 // length, program, version, procedure, type, serial, status
	rpcTypeCall            = 0
)

// heldCall is a call holdingProxy holds back from the daemon until
// release is closed.
type heldCall struct {
	proc    uint32
	release chan struct{}
}

// holdingProxy is a libvirt socket in front of the daemon at sock that
// passes everything through, but holds the first call of each procedure
// in procs, as a daemon that stops answering mid-apply would, and tells
// held of it. The client has sent the call by then, so it waits on it.
func holdingProxy(t *testing.T, sock string, procs ...uint32) (uri string, held <-chan heldCall) {
	t.Helper()
	front := filepath.Join(t.TempDir(), "proxy-sock")
	l, err := net.Listen("unix", front)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	hold := map[uint32]bool{}
	for _, p := range procs {
		hold[p] = true
	}
	ch := make(chan heldCall, len(procs))
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("unix", sock)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); d.Close() })
			go io.Copy(c, d)
			go func() {
				defer d.Close()
				hdr := make([]byte, rpcHeaderBytes)
				for {
					if _, err := io.ReadFull(c, hdr); err != nil {
						return
					}
					n := binary.BigEndian.Uint32(hdr[0:])
					if n < rpcHeaderBytes {
						return
					}
					body := make([]byte, n-rpcHeaderBytes)
					if _, err := io.ReadFull(c, body); err != nil {
						return
					}
					prog, proc, typ := binary.BigEndian.Uint32(hdr[4:]), binary.BigEndian.Uint32(hdr[12:]), binary.BigEndian.Uint32(hdr[16:])
					mu.Lock()
					first := prog == remoteProgram && typ == rpcTypeCall && hold[proc]
					delete(hold, proc)
					mu.Unlock()
					if first {
						h := heldCall{proc: proc, release: make(chan struct{})}
						ch <- h
						<-h.release
					}
					if _, err := d.Write(append(hdr, body...)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "qemu+unix:///session?socket=" + front, ch
}

// TestApplyCallsAreNamed: each call apply makes to create a pool, a
// volume and a domain, and to undefine the domain and delete its
// volume, is named to the run
// with what it acts on while the daemon holds it; before, only the
// calls that observe were, and a daemon that stopped answering
// mid-apply left the run unable to say on what it waits.
func TestApplyCallsAreNamed(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="),
		procPoolDefineXML, procPoolBuild, procPoolCreate, procPoolSetAutostart, procVolCreateXML, procDomainDefineXML, procDomainUndefine, procVolDelete)
	want := map[uint32]string{
		procPoolDefineXML:    "StoragePoolDefineXML images",
		procPoolBuild:        "Build of storage pool images",
		procPoolCreate:       "Create of storage pool images",
		procPoolSetAutostart: "SetAutostart of storage pool images",
		procVolCreateXML:     "StorageVolCreateXML images/web-data",
		procDomainDefineXML:  "DomainDefineXML web",
		procDomainUndefine:   "Undefine of domain web",
		procVolDelete:        "Delete of volume images/web-data",
	}
	run := runstate.Start(backends.NewRun())
	r := newRig(t, sessionHost, Options{URIMap: map[string]string{sessionHost: uri}, Run: run})
	server := "libvirt host " + sessionHost + " (as " + uri + ")"
	pool := &model.Pool{HostName: "local", Host: sessionHost, Name: "images", Type: "dir", Path: filepath.Join(s.Dir, "images")}

	heard := map[uint32]bool{}
	// applyHolding plans g and applies it, checking for each call the
	// proxy holds that the run names it while the call waits.
	applyHolding := func(g *graph.Graph, ack ...plan.Gate) {
		t.Helper()
		obs, applyRun := r.diff(g)
		done := make(chan error, 1)
		go func() {
			rep, err := r.tryApply(g, obs, applyRun, ack...)
			for _, st := range rep.Steps {
				if err == nil && st.Status == engine.StatusFailed {
					err = fmt.Errorf("%s: %s %v", st.Step, st.Reason, st.Problems)
				}
			}
			done <- err
		}()
		for {
			select {
			case h := <-held:
				got := run.Awaiting()
				if !slices.ContainsFunc(got, func(a backends.Awaited) bool { return a.Server == server && a.Request == want[h.proc] }) {
					t.Errorf("while the daemon holds the call, the run awaits %+v, want %s to answer %s among them", got, server, want[h.proc])
				}
				heard[h.proc] = true
				close(h.release)
			case err := <-done:
				if err != nil {
					t.Fatalf("apply: %v", err)
				}
				return
			}
		}
	}
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-data", SizeBytes: 1 << 20})
	applyHolding(r.graph([]*model.VM{vm}, nil))
	// web is the tenant's no more: its removal undefines it and
	// deletes its disk (keep's define is not the first, so not held).
	keep := r.stopped("keep", pool)
	applyHolding(r.graph([]*model.VM{keep}, nil), plan.GateVMDestroy)
	for _, p := range slices.Sorted(maps.Keys(want)) {
		if !heard[p] {
			t.Errorf("apply never sent the call that %s names (procedure %d)", want[p], p)
		}
	}
}

// TestLeaseReadIsNamed: a read of a guest's DHCP lease, which apply
// polls while the guest boots, is named to the run while the daemon
// holds it, as a read and not as the wait for the lease.
func TestLeaseReadIsNamed(t *testing.T) {
	s := libvirttest.StartSession(t)
	uri, held := holdingProxy(t, strings.TrimPrefix(s.URI, "qemu+unix:///session?socket="), procDomainLookupByName)
	run := runstate.Start(backends.NewRun())
	d := New(Options{URIMap: map[string]string{sessionHost: uri}, Run: run})
	t.Cleanup(func() { _ = d.Close() })
	done := make(chan error, 1)
	go func() {
		_, err := d.Lease(context.Background(), model.LeaseRef{Host: sessionHost, VM: "web"})
		done <- err
	}()
	want := backends.Awaited{Server: "libvirt host " + sessionHost + " (as " + uri + ")",
		Request: "LookupDomainByName, IsActive, GetXMLDesc of domain web, GetDHCPLeases of its network"}
	select {
	case h := <-held:
		got := run.Awaiting()
		if len(got) != 1 || got[0].Server != want.Server || got[0].Request != want.Request {
			t.Errorf("while the daemon holds the lookup, the run awaits %+v, want %s to answer %s", got, want.Server, want.Request)
		}
		close(h.release)
	case err := <-done:
		t.Fatalf("Lease ended (%v) without looking the domain up", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Lease of a domain that does not exist: %v, want no address and no error", err)
	}
}

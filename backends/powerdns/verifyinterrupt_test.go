package powerdns

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// holdProxy starts a zone transfer from the real server and holds it:
// it passes on the transfer's first message, then sends nothing more
// and waits for the client to close the connection.
type holdProxy struct {
	addr   string
	held   chan struct{} // closed once the first message went out
	closed chan struct{} // closed once the client closed the connection
}

func newHoldProxy(t *testing.T, upstream string) *holdProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	p := &holdProxy{addr: l.Addr().String(), held: make(chan struct{}), closed: make(chan struct{})}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if err := p.startTransfer(c, upstream); err != nil {
			t.Errorf("hold proxy: %v", err)
			return
		}
		close(p.held)
		io.Copy(io.Discard, c) // until the client closes
		close(p.closed)
	}()
	return p
}

// startTransfer reads the client's AXFR question and answers it with
// the first message of the upstream's transfer.
func (p *holdProxy) startTransfer(c net.Conn, upstream string) error {
	var size uint16
	if err := binary.Read(c, binary.BigEndian, &size); err != nil {
		return err
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(c, buf); err != nil {
		return err
	}
	q := new(dns.Msg)
	if err := q.Unpack(buf); err != nil {
		return err
	}
	in, err := (&dns.Transfer{}).In(q, upstream)
	if err != nil {
		return err
	}
	env := <-in
	go func() {
		for range in { // the rest of the transfer is never passed on
		}
	}()
	if env == nil || env.Error != nil {
		return fmt.Errorf("upstream transfer: %v", env)
	}
	reply := new(dns.Msg).SetReply(q)
	reply.Answer = env.RR
	out, err := reply.Pack()
	if err != nil {
		return err
	}
	return binary.Write(c, binary.BigEndian, append(binary.BigEndian.AppendUint16(nil, uint16(len(out))), out...))
}

// TestVerifyInterrupted: Ctrl-C during the zone transfer that verifies
// an apply (the run interrupted, or the context cancelled) stops the
// transfer, closing its connection, and says verification was
// interrupted; it does not wait for the transfer's timeout and call
// that a failure.
func TestVerifyInterrupted(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "held.test."
	srv.CreateZone(t, zone)
	want := manyA(zone, 30)
	t.Run("apply, run interrupted", func(t *testing.T) {
		p := newHoldProxy(t, srv.DNSAddr)
		d, run := testDriver(), newRun(srv)
		d.VerifyAddr = func(*model.Zone, *backends.Run) string { return p.addr }
		sp := mustPlan(t, d, zoneStep(srv, "office1", zone, want...), run)
		go func() { <-p.held; runstate.Interrupts(run).Interrupt() }()
		res := mustApply(t, d, sp, run)
		if len(res.Problems) != 0 {
			t.Errorf("got problems %q, want none: an interrupted verification is no failure", res.Problems)
		}
		wantNote := fmt.Sprintf("zone %s: verification over DNS at %s was interrupted", zone, p.addr)
		if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], wantNote) {
			t.Errorf("got notes %q, want one starting %q", res.Notes, wantNote)
		}
		waitClosed(t, p)
	})
	t.Run("transfer, context cancelled", func(t *testing.T) {
		p := newHoldProxy(t, srv.DNSAddr)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-p.held; cancel() }()
		var n atomic.Int64
		if _, err := transfer(ctx, &n, p.addr, zone); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		waitClosed(t, p)
	})
}

// waitClosed fails unless the proxy sees its client close the
// connection. The bound only keeps a broken test from hanging: the
// connection is closed before transfer returns.
func waitClosed(t *testing.T, p *holdProxy) {
	t.Helper()
	select {
	case <-p.closed:
	case <-time.After(time.Minute):
		t.Error("the proxy never saw the transfer's connection closed")
	}
}

// TestVerifyQueryInterrupted: a query to a server that does not answer
// ends when its context is cancelled, saying so, not at its timeout.
func TestVerifyQueryInterrupted(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// The question arrived; no answer will.
		if _, _, err := pc.ReadFrom(make([]byte, 512)); err == nil {
			cancel()
		}
	}()
	var n atomic.Int64
	if _, err := query(ctx, &n, pc.LocalAddr().String(), "a.held.test.", "A"); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestInterruptedBeforeItsTurnWritesNothing: a step interrupted while it
// waited its turn to write (PATCHes to one server go one at a time, and
// zone creations share that turn) sends nothing and says it was not
// started; steps queued behind a long write wrote after the Ctrl-C.
func TestInterruptedBeforeItsTurnWritesNothing(t *testing.T) {
	srv := pdnstest.Shared(t)
	for _, tc := range []struct {
		name   string
		exists bool
	}{
		{"patch", true},
		{"create", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zone := "turn-" + tc.name + ".example.test."
			if tc.exists {
				srv.CreateZone(t, zone)
			}
			step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.1"))
			run := newRun(srv)
			d := testDriver()
			sp, err := d.Plan(context.Background(), step, run)
			if err != nil {
				t.Fatal(err)
			}
			srv.ResetRequests(zone)
			srv.ResetRequests("")
			runstate.Interrupts(run).Interrupt()
			res, err := d.Apply(context.Background(), sp, run)
			if !errors.Is(err, backends.ErrInterrupted) || !strings.Contains(err.Error(), "not started") {
				t.Fatalf("got %v, want not started because of the interrupt", err)
			}
			if res.Writes != 0 || srv.Requests(zone).Writes() != 0 || srv.Requests("").Writes() != 0 {
				t.Errorf("an interrupted step wrote: result %d writes, server %+v / %+v", res.Writes, srv.Requests(zone), srv.Requests(""))
			}
		})
	}
}

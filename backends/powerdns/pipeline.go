package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// askWindow bounds the questions askAll has in flight on its socket: a
// burst the server's receive buffer holds (256 in flight lost some to a
// PowerDNS on loopback, measured).
const askWindow = 64

// askRetry is how long askAll waits for an answer before it sends the
// question again: UDP may lose it, and one lost answer must not cost
// the whole check (queryTimeout still bounds each question).
const askRetry = 400 * time.Millisecond

// askAll asks addr each of keys, as ask does, and calls got with every
// answer (data or "no such name"; any other rcode is an *rcodeError and
// ends it, as the first error does). The hidden-data check asks one
// question per created rrset: asked one socket each, 8 at a time, they
// made a 10,000-rrset apply 2.6 times slower (dialling and closing a
// socket cost more than the question). So the questions go over one UDP
// socket, askWindow in flight, matched to their answers by ID and
// question; an answer that is truncated is asked again over TCP. A
// question unanswered after askRetry is sent again, and fails after
// queryTimeout.
func askAll(ctx context.Context, n *atomic.Int64, addr string, keys []rrKey, got func(i int, in *dns.Msg)) error {
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		if _, ok := dns.StringToType[k.typ]; !ok {
			return fmt.Errorf("cannot query type %s", k.typ)
		}
	}
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	conn, err := (&net.Dialer{Timeout: queryTimeout}).DialContext(ctx, "udp", addr)
	if err != nil {
		return cancelled(ctx, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	p := pipe{conn: conn, n: n, keys: keys, got: got, pending: map[uint16]inFlight{}, id: dns.Id()}
	if err := p.run(); err != nil {
		return cancelled(ctx, err)
	}
	return eachBounded(ctx, len(p.truncated), func(ctx context.Context, j int) error {
		i := p.truncated[j]
		m := question(keys[i].name, dns.StringToType[keys[i].typ])
		n.Add(1)
		in, err := exchange(ctx, &dns.Client{Net: "tcp", Timeout: queryTimeout}, m, addr)
		if err == nil {
			err = answered(in, keys[i].name, keys[i].typ)
		} else {
			err = fmt.Errorf("query %s %s: %w", keys[i].name, keys[i].typ, err)
		}
		if err == nil {
			got(i, in)
		}
		return err
	})
}

// pipe is one askAll's UDP exchange.
type pipe struct {
	conn      net.Conn
	n         *atomic.Int64
	keys      []rrKey
	got       func(i int, in *dns.Msg)
	pending   map[uint16]inFlight // by message ID
	id        uint16              // the next message ID
	next      int                 // the next key to send
	truncated []int               // keys to ask again over TCP
}

// inFlight is a question sent and not yet answered.
type inFlight struct {
	i           int
	first, last time.Time // when it was first and last sent
	wire        []byte
}

// run sends every question, askWindow at a time, and reads the answers.
// Questions go out and answers come in a batch per system call
// (sendmmsg, recvmmsg where the system has them): one call per datagram
// was most of the check's own CPU, which the server shares on a small
// machine.
func (p *pipe) run() error {
	bc := batchIO(p.conn)
	in := make([]ipv4.Message, askWindow)
	for i := range in {
		in[i].Buffers = [][]byte{make([]byte, answerBuf)}
	}
	out, wires := make([]ipv4.Message, 0, askWindow), make([][]byte, askWindow)
	for p.next < len(p.keys) || len(p.pending) > 0 {
		out = out[:0]
		for p.next < len(p.keys) && len(p.pending) < askWindow {
			wire, err := p.send()
			if err != nil {
				return err
			}
			wires[len(out)] = wire // Buffers of its own would allocate per question
			out = append(out, ipv4.Message{Buffers: wires[len(out) : len(out)+1]})
		}
		if err := writeAll(bc, out, p.keys[p.next-len(out):]); err != nil {
			return err
		}
		if err := p.conn.SetReadDeadline(p.deadline()); err != nil {
			return err
		}
		got, err := bc.ReadBatch(in, 0)
		if err != nil {
			if !isTimeout(err) {
				return err
			}
			if err := p.resend(err); err != nil {
				return err
			}
			continue
		}
		for _, m := range in[:got] {
			if err := p.receive(m.Buffers[0][:m.N]); err != nil {
				return err
			}
		}
	}
	return nil
}

// answerBuf holds any answer to a question askAll sends: without EDNS
// an answer over UDP is at most 512 bytes (RFC 1035), and a longer one
// comes truncated and is asked again over TCP.
const answerBuf = 4096

// batchConn reads and writes datagrams a batch per system call.
type batchConn interface {
	ReadBatch(ms []ipv4.Message, flags int) (int, error)
	WriteBatch(ms []ipv4.Message, flags int) (int, error)
}

// batchIO is conn's batch reader and writer, by its address family.
func batchIO(conn net.Conn) batchConn {
	pc := conn.(net.PacketConn)
	if a, ok := conn.LocalAddr().(*net.UDPAddr); ok && a.IP.To4() == nil {
		return ipv6.NewPacketConn(pc)
	}
	return ipv4.NewPacketConn(pc)
}

// writeAll writes every message of out (the questions of keys, in
// order), however many calls it takes.
func writeAll(bc batchConn, out []ipv4.Message, keys []rrKey) error {
	for len(out) > 0 {
		n, err := bc.WriteBatch(out, 0)
		if err != nil {
			return fmt.Errorf("query %s %s: %w", keys[0].name, keys[0].typ, err)
		}
		out, keys = out[n:], keys[n:]
	}
	return nil
}

// isTimeout is whether err is a read's deadline passing.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// send files the next question under a message ID no other in flight
// has, and returns its wire form for run to send.
func (p *pipe) send() ([]byte, error) {
	for {
		if _, busy := p.pending[p.id]; !busy {
			break
		}
		p.id++
	}
	k := p.keys[p.next]
	m := question(k.name, dns.StringToType[k.typ])
	m.Id = p.id
	wire, err := m.Pack()
	if err != nil {
		return nil, fmt.Errorf("query %s %s: %w", k.name, k.typ, err)
	}
	p.n.Add(1)
	now := time.Now()
	p.pending[p.id] = inFlight{i: p.next, first: now, last: now, wire: wire}
	p.id++
	p.next++
	return wire, nil
}

// deadline is when the next question in flight is due to be sent
// again, or to fail.
func (p *pipe) deadline() time.Time {
	var at time.Time
	for _, f := range p.pending {
		due := f.last.Add(askRetry)
		if end := f.first.Add(queryTimeout); end.Before(due) {
			due = end
		}
		if at.IsZero() || due.Before(at) {
			at = due
		}
	}
	return at
}

// resend sends again each question in flight whose answer is overdue,
// and fails (with timeout, the read's error) on the first that has
// waited queryTimeout.
func (p *pipe) resend(timeout error) error {
	now := time.Now()
	for id, f := range p.pending {
		k := p.keys[f.i]
		switch {
		case !now.Before(f.first.Add(queryTimeout)):
			return fmt.Errorf("query %s %s: %w", k.name, k.typ, timeout)
		case !now.Before(f.last.Add(askRetry)):
			p.n.Add(1)
			if _, err := p.conn.Write(f.wire); err != nil {
				return fmt.Errorf("query %s %s: %w", k.name, k.typ, err)
			}
			f.last = now
			p.pending[id] = f
		}
	}
	return nil
}

// receive files one datagram: an answer to a question in flight, or
// nothing (a late or stray datagram, or one for another question).
func (p *pipe) receive(wire []byte) error {
	if len(wire) < 2 {
		return nil
	}
	f, ok := p.pending[uint16(wire[0])<<8|uint16(wire[1])]
	if !ok {
		return nil
	}
	k := p.keys[f.i]
	in := new(dns.Msg)
	if err := in.Unpack(wire); err != nil {
		return fmt.Errorf("query %s %s: %w", k.name, k.typ, err)
	}
	if len(in.Question) != 1 || !strings.EqualFold(in.Question[0].Name, k.name) || in.Question[0].Qtype != dns.StringToType[k.typ] {
		return nil
	}
	delete(p.pending, in.Id)
	if in.Truncated {
		p.truncated = append(p.truncated, f.i)
		return nil
	}
	if err := answered(in, k.name, k.typ); err != nil {
		return err
	}
	p.got(f.i, in)
	return nil
}

// question is the message asking name/type, without recursion.
func question(name string, t uint16) *dns.Msg {
	m := new(dns.Msg)
	m.SetQuestion(name, t)
	m.RecursionDesired = false
	return m
}

// answered is nil when in is data or "no such name", else an *rcodeError.
func answered(in *dns.Msg, name, typ string) error {
	if in.Rcode != dns.RcodeSuccess && in.Rcode != dns.RcodeNameError {
		return &rcodeError{name, typ, in.Rcode}
	}
	return nil
}

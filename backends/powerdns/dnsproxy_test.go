package powerdns

import (
	"maps"
	"net"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// dnsProxy stands between the verifier and the server's DNS port and
// counts the questions that arrive, by type, over UDP and TCP.
type dnsProxy struct {
	addr       string
	upstream   string
	refuseAXFR bool   // answer AXFR with REFUSED instead of passing it on
	refuseAll  bool   // answer every question REFUSED, as a server that does not serve the zone
	before     func() // called once, before the first question is passed on
	once       sync.Once
	mu         sync.Mutex
	seen       map[string]int
}

func newDNSProxy(t *testing.T, upstream string) *dnsProxy {
	t.Helper()
	p := &dnsProxy{upstream: upstream, seen: map[string]int{}}
	p.addr = serveDNS(t, p)
	return p
}

// serveDNS answers DNS with h on a loopback port, over UDP and TCP.
func serveDNS(t *testing.T, h dns.Handler) string {
	t.Helper()
	// TCP on the same port as UDP, as a DNS server has it: a UDP port
	// that is free may be taken for TCP, so another one is tried then.
	var pc net.PacketConn
	var l net.Listener
	for try := 1; ; try++ {
		var err error
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if l, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			break
		}
		pc.Close()
		if try == 20 {
			t.Fatalf("no port free for both UDP and TCP after %d tries: %v", try, err)
		}
	}
	udp := &dns.Server{PacketConn: pc, Handler: h}
	tcp := &dns.Server{Listener: l, Handler: h}
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	t.Cleanup(func() { udp.Shutdown(); tcp.Shutdown() })
	return pc.LocalAddr().String()
}

func (p *dnsProxy) counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.seen)
}

// reset forgets the questions counted so far: a test of what apply's
// check asks drops what the plan asked before creating names (hidden.go).
func (p *dnsProxy) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.seen)
}

func (p *dnsProxy) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	if len(r.Question) != 1 {
		w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeFormatError))
		return
	}
	q := r.Question[0]
	p.mu.Lock()
	p.seen[dns.TypeToString[q.Qtype]]++
	p.mu.Unlock()
	if p.before != nil {
		p.once.Do(p.before)
	}
	if p.refuseAll {
		w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeRefused))
		return
	}
	if q.Qtype == dns.TypeAXFR {
		if p.refuseAXFR {
			w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeRefused))
			return
		}
		in, err := (&dns.Transfer{}).In(r, p.upstream)
		if err != nil {
			w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeServerFailure))
			return
		}
		out := make(chan *dns.Envelope)
		go func() {
			defer close(out)
			for env := range in {
				if env.Error != nil {
					return
				}
				out <- &dns.Envelope{RR: env.RR}
			}
		}()
		(&dns.Transfer{}).Out(w, r, out) // returns once out is drained
		w.Close()
		return
	}
	proto := "udp"
	if _, ok := w.RemoteAddr().(*net.TCPAddr); ok {
		proto = "tcp"
	}
	resp, _, err := (&dns.Client{Net: proto}).Exchange(r, p.upstream)
	if err != nil {
		w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeServerFailure))
		return
	}
	w.WriteMsg(resp)
}

package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// fakeDNS answers every A question with an address of the name's own
// (n<i>. gets 10.0.i/256.i%256), after two datagrams askAll must ignore:
// one with the question's ID but another question, one with another ID.
// Names starting "big" are truncated over UDP; "refused" is REFUSED;
// "drop" is never answered, "lost" only when asked the second time.
type fakeDNS struct {
	udp, tcp atomic.Int64
	mu       sync.Mutex
	asked    map[string]int
}

func (f *fakeDNS) ServeDNS(w dns.ResponseWriter, r *dns.Msg) {
	q := r.Question[0]
	_, overTCP := w.RemoteAddr().(*net.TCPAddr)
	if overTCP {
		f.tcp.Add(1)
	} else {
		f.udp.Add(1)
	}
	f.mu.Lock()
	f.asked[q.Name]++
	again := f.asked[q.Name] > 1
	f.mu.Unlock()
	switch {
	case strings.HasPrefix(q.Name, "drop"), strings.HasPrefix(q.Name, "lost") && !again:
		return
	case strings.HasPrefix(q.Name, "refused"):
		w.WriteMsg(new(dns.Msg).SetRcode(r, dns.RcodeRefused))
		return
	}
	if !overTCP {
		decoy := new(dns.Msg).SetReply(r)
		decoy.Question[0].Name = "decoy." + q.Name
		decoy.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 1}, A: net.IPv4(192, 0, 2, 99)}}
		w.WriteMsg(decoy)
		stray := new(dns.Msg).SetReply(r)
		stray.Id = r.Id + 1000
		w.WriteMsg(stray)
	}
	m := new(dns.Msg).SetReply(r)
	if strings.HasPrefix(q.Name, "big") && !overTCP {
		m.Truncated = true
		w.WriteMsg(m)
		return
	}
	var i int
	fmt.Sscanf(strings.TrimLeft(q.Name, "bignlost"), "%d", &i)
	m.Answer = []dns.RR{&dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.IPv4(10, 0, byte(i/256), byte(i%256))}}
	w.WriteMsg(m)
}

func startFakeDNS(t *testing.T) (*fakeDNS, string) {
	t.Helper()
	f := &fakeDNS{asked: map[string]int{}}
	return f, serveDNS(t, f)
}

// TestAskAllMatchesAnswersToQuestions: with many questions in flight on
// one socket, each answer reaches its own question, once; datagrams for
// no question in flight, or for another question under its ID, are
// ignored; a truncated answer is asked again over TCP, a lost one again
// over UDP; every exchange is counted.
func TestAskAllMatchesAnswersToQuestions(t *testing.T) {
	f, addr := startFakeDNS(t)
	var keys []rrKey
	for i := range 500 {
		name := fmt.Sprintf("n%d.", i)
		switch i % 50 {
		case 0:
			name = fmt.Sprintf("big%d.", i)
		case 1:
			name = fmt.Sprintf("lost%d.", i)
		}
		keys = append(keys, rrKey{name, "A"})
	}
	var mu sync.Mutex
	seen := map[int]int{}
	var n atomic.Int64
	err := askAll(context.Background(), &n, addr, keys, func(i int, in *dns.Msg) {
		mu.Lock()
		defer mu.Unlock()
		seen[i]++
		want := fmt.Sprintf("10.0.%d.%d", i/256, i%256)
		if len(in.Answer) != 1 || in.Answer[0].Header().Name != keys[i].name || in.Answer[0].(*dns.A).A.String() != want {
			t.Errorf("question %s got %v, want its own answer %s", keys[i].name, in.Answer, want)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if seen[i] != 1 {
			t.Errorf("question %s answered %d times, want once", keys[i].name, seen[i])
		}
	}
	// A slow answer may be asked for again too: at least 510 over UDP.
	if f.udp.Load() < 510 || f.tcp.Load() != 10 || n.Load() != f.udp.Load()+f.tcp.Load() {
		t.Errorf("%d UDP and %d TCP questions arrived, %d counted; want 510 or more (the lost asked twice), 10 (the truncated), all counted", f.udp.Load(), f.tcp.Load(), n.Load())
	}
}

// TestAskAllFails: a REFUSED answer is an *rcodeError naming its
// question; a question never answered fails naming it, once it has
// waited queryTimeout.
func TestAskAllFails(t *testing.T) {
	_, addr := startFakeDNS(t)
	var n atomic.Int64
	keys := []rrKey{{"n1.", "A"}, {"refused.", "A"}, {"n2.", "A"}}
	var rc *rcodeError
	if err := askAll(context.Background(), &n, addr, keys, func(int, *dns.Msg) {}); !errors.As(err, &rc) || rc.name != "refused." {
		t.Errorf("got %v, want the REFUSED answer to refused. A", err)
	}
	keys = []rrKey{{"n1.", "A"}, {"drop.", "A"}}
	if err := askAll(context.Background(), &n, addr, keys, func(int, *dns.Msg) {}); err == nil || !strings.Contains(err.Error(), "query drop. A") {
		t.Errorf("got %v, want the unanswered question drop. A named", err)
	}
}

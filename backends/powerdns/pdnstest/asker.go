package pdnstest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Asker queries an authority for one name's A over and over, as
// resolvers would while a change is applied, and counts the queries not
// answered with one of the wanted addresses: a handover that leaves a
// moment without the name shows as unanswered queries.
type Asker struct {
	asked, unanswered atomic.Int64
	stop              chan struct{}
	done              sync.WaitGroup
}

// StartAsking starts asking addr (host:port, UDP) for name's A every
// every, and returns once three queries were asked, so that the loop
// runs across what the caller does next.
func StartAsking(t testing.TB, addr, name string, every time.Duration, want ...string) *Asker {
	t.Helper()
	a := &Asker{stop: make(chan struct{})}
	c := &dns.Client{Net: "udp", Timeout: time.Second}
	a.done.Add(1)
	go func() {
		defer a.done.Done()
		for {
			select {
			case <-a.stop:
				return
			default:
			}
			m := new(dns.Msg)
			m.SetQuestion(dns.Fqdn(name), dns.TypeA)
			r, _, err := c.Exchange(m, addr)
			if err != nil || r.Rcode != dns.RcodeSuccess || !hasA(r, want) {
				a.unanswered.Add(1)
			}
			a.asked.Add(1)
			time.Sleep(every)
		}
	}()
	a.after(3)
	return a
}

// after waits until n more queries were asked.
func (a *Asker) after(n int64) {
	for start := a.asked.Load(); a.asked.Load() < start+n; {
		time.Sleep(time.Millisecond)
	}
}

// Finish lets three more queries run, stops, and returns how many were
// asked and how many went unanswered.
func (a *Asker) Finish() (asked, unanswered int64) {
	a.after(3)
	close(a.stop)
	a.done.Wait()
	return a.asked.Load(), a.unanswered.Load()
}

func hasA(r *dns.Msg, want []string) bool {
	for _, rr := range r.Answer {
		if a, ok := rr.(*dns.A); ok {
			for _, w := range want {
				if a.A.String() == w {
					return true
				}
			}
		}
	}
	return false
}

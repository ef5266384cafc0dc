// Package locktest helps tests tell calls that run at once from calls
// that run one after the other, without timing anything.
package locktest

import (
	"sync"
	"time"
)

// Gauge counts the calls inside something at once. Each call Enters and
// Leaves; a call that Enters alone waits (at most a second, and only
// until the first such wait has ended alone) for a second one to come
// in, so calls made together always overlap, and calls made one after
// the other cost the suite one second, not one per call.
type Gauge struct {
	mu      sync.Mutex
	in      int
	most    int
	alone   bool
	arrived chan struct{}
}

// NewGauge returns a gauge that waits for company; NoWait one that
// only counts.
func NewGauge() *Gauge { return &Gauge{arrived: make(chan struct{})} }

// NoWait returns a gauge that never waits.
func NoWait() *Gauge { g := NewGauge(); g.alone = true; return g }

// Enter counts a call in.
func (g *Gauge) Enter() {
	g.mu.Lock()
	g.in++
	g.most = max(g.most, g.in)
	if g.in >= 2 {
		close(g.arrived)
		g.arrived = make(chan struct{})
	}
	wait, arrived := g.in < 2 && !g.alone, g.arrived
	g.mu.Unlock()
	if wait {
		select {
		case <-arrived:
		case <-time.After(time.Second):
			g.mu.Lock()
			g.alone = true
			g.mu.Unlock()
		}
	}
}

// Leave counts a call out.
func (g *Gauge) Leave() {
	g.mu.Lock()
	g.in--
	g.mu.Unlock()
}

// Most is the largest number of calls that were inside at once.
func (g *Gauge) Most() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

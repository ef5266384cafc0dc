package lock

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowRenew is a file store whose Renew waits until its test lets it
// go, and which counts its Releases.
type slowRenew struct {
	File
	renewing chan struct{} // closed when the first Renew starts
	finish   chan struct{} // closed by the test: Renew goes on
	once     *sync.Once
	releases *atomic.Int32
	renewed  *atomic.Bool // a Renew finished
}

func (s slowRenew) Renew(ctx context.Context, h Holder) error {
	s.once.Do(func() { close(s.renewing) })
	<-s.finish
	defer s.renewed.Store(true)
	return s.File.Renew(ctx, h)
}

func (s slowRenew) Release(ctx context.Context, h Holder) error {
	s.releases.Add(1)
	return s.File.Release(ctx, h)
}

// TestReleaseNeverRacesARenewal: a Release while a renewal is in flight
// waits for it, so the removal cannot reach the store before the renewal
// and leave the renewed hold behind; given a deadline it gives up and
// removes nothing (site's second Ctrl-C must not wait for a hung
// server), and a later Release with time removes the hold. Two
// Releases at once remove it once, and neither panics.
func TestReleaseNeverRacesARenewal(t *testing.T) {
	s := slowRenew{File: File{Path: filepath.Join(t.TempDir(), ".office1.lock")}, renewing: make(chan struct{}),
		finish: make(chan struct{}), once: &sync.Once{}, releases: &atomic.Int32{}, renewed: &atomic.Bool{}}
	l, err := Acquire(context.Background(), []Store{s}, holder("A"), Options{Lease: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	<-s.renewing
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.Release(ctx); err == nil || !strings.Contains(err.Error(), "renewal in flight") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Release during a renewal that does not end: %v, want it to give up", err)
	}
	if l.Released() || s.releases.Load() != 0 {
		t.Errorf("Release gave up but removed the hold (%d removals) or says it did (%v)", s.releases.Load(), l.Released())
	}
	close(s.finish)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = l.Release(context.Background()) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if !s.renewed.Load() || !l.Released() || s.releases.Load() != 1 {
		t.Errorf("after the renewal: renewed %v, released %v, %d removals; want the renewal finished, then one removal", s.renewed.Load(), l.Released(), s.releases.Load())
	}
	if hs, _ := s.Holders(context.Background()); len(hs) != 0 {
		t.Errorf("the store still holds %+v", hs)
	}
}

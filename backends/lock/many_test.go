package lock

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock/locktest"
)

// gauged is a store whose Try, Renew and Release calls a gauge counts,
// and which remembers whether it was tried.
type gauged struct {
	Store
	g     *locktest.Gauge
	mu    *sync.Mutex
	tried *bool
	first bool
}

func (s gauged) Try(ctx context.Context, h Holder) (*Holder, error) {
	s.mu.Lock()
	*s.tried = true
	s.mu.Unlock()
	if !s.first { // tried alone by design
		s.g.Enter()
		defer s.g.Leave()
	}
	return s.Store.Try(ctx, h)
}

func (s gauged) Release(ctx context.Context, h Holder) error {
	s.g.Enter()
	defer s.g.Leave()
	return s.Store.Release(ctx, h)
}

func manyStores(t *testing.T, n int, g *locktest.Gauge) ([]Store, []File, []*bool) {
	dir := t.TempDir()
	var stores []Store
	var files []File
	var tried []*bool
	mu := &sync.Mutex{}
	for i := range n {
		f := File{Path: filepath.Join(dir, fmt.Sprintf("%02d.lock", i)), Now: fixedNow}
		b := new(bool)
		files, tried = append(files, f), append(tried, b)
		stores = append(stores, gauged{Store: f, g: g, mu: mu, tried: b, first: i == 0})
	}
	return stores, files, tried
}

// A tenant with many zones holds its lock in each: Acquire takes the
// first store alone and the others at once, and Release lets go of all
// of them at once (one store after the other took seconds on 200 zones).
func TestAcquireManyStoresAtOnce(t *testing.T) {
	ctx := context.Background()
	g := locktest.NewGauge()
	stores, files, _ := manyStores(t, 6, g)
	l, err := Acquire(ctx, stores, holder("A"), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if g.Most() < 2 {
		t.Errorf("Acquire tried at most %d stores at once, want several", g.Most())
	}
	for _, f := range files {
		if h, _ := f.Holders(ctx); len(h) != 1 || h[0].ID != tok("A") {
			t.Errorf("%s holds %+v, want A", f.Path, h)
		}
	}
	g2 := locktest.NewGauge()
	for i := range l.stores {
		s := l.stores[i].(gauged)
		s.g = g2
		l.stores[i] = s
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if g2.Most() < 2 {
		t.Errorf("Release let go of at most %d stores at once, want several", g2.Most())
	}
	for _, f := range files {
		if h, _ := f.Holders(ctx); len(h) != 0 {
			t.Errorf("%s still holds %+v after Release", f.Path, h)
		}
	}
}

// Taking the rest at once decides what taking them in order did: a run
// that finds another holding a later store holds none of them afterwards
// and names that store; a run that finds the first store held tries no
// other (the first store keeps two runs of one tenant apart).
func TestAcquireManyStoresAllOrNone(t *testing.T) {
	ctx := context.Background()
	live := holder("B")
	live.Expires = t0.Add(time.Minute)
	for _, heldAt := range []int{0, 3, 5} {
		t.Run(fmt.Sprintf("held at store %d", heldAt), func(t *testing.T) {
			// What is tried matters here, not how many at once.
			stores, files, tried := manyStores(t, 6, locktest.NoWait())
			if other, err := files[heldAt].Try(ctx, live); err != nil || other != nil {
				t.Fatalf("B takes %s: %v %v", files[heldAt].Path, other, err)
			}
			_, err := Acquire(ctx, stores, holder("A"), Options{Now: fixedNow})
			if err == nil || !strings.Contains(err.Error(), "holding file "+files[heldAt].Path) {
				t.Fatalf("Acquire: %v, want B named as the holder of %s", err, files[heldAt].Path)
			}
			for i, f := range files {
				h, _ := f.Holders(ctx)
				switch {
				case i == heldAt && (len(h) != 1 || h[0].ID != tok("B")):
					t.Errorf("%s holds %+v, want B alone", f.Path, h)
				case i != heldAt && len(h) != 0:
					t.Errorf("%s holds %+v after a failed Acquire, want nothing", f.Path, h)
				}
				if heldAt == 0 && i > 0 && *tried[i] {
					t.Errorf("store %d was tried though the first store is held", i)
				}
			}
		})
	}
}

// oneStep is a store that can be taken in one step (HeldTaker) and
// records how it was taken.
type oneStep struct {
	File
	mu  *sync.Mutex
	how map[string]string // Path -> "Try" or "TryHeld"
}

func (s oneStep) Try(ctx context.Context, h Holder) (*Holder, error) {
	s.record("Try")
	return s.File.Try(ctx, h)
}

func (s oneStep) TryHeld(ctx context.Context, h Holder) (*Holder, error) {
	s.record("TryHeld")
	return s.File.Try(ctx, h)
}

func (s oneStep) record(how string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.how[s.Path] += how
}

// TestAcquireTakesTheRestInOneStep: the first store is taken with Try
// (its claim round orders runs racing for it), every other store that
// can be taken in one step with TryHeld, once each.
func TestAcquireTakesTheRestInOneStep(t *testing.T) {
	dir := t.TempDir()
	how, mu := map[string]string{}, &sync.Mutex{} // the stores are taken at once
	var stores []Store
	for i := range 5 {
		stores = append(stores, oneStep{File: File{Path: filepath.Join(dir, fmt.Sprintf("%02d.lock", i)), Now: fixedNow}, mu: mu, how: how})
	}
	l, err := Acquire(context.Background(), stores, holder("A"), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.Background())
	for i, s := range stores {
		want := "TryHeld"
		if i == 0 {
			want = "Try"
		}
		if got := how[s.(oneStep).Path]; got != want {
			t.Errorf("store %d was taken with %q, want %q", i, got, want)
		}
	}
}

// TestAcquireReportsATakeoverOnce: a dead run held every store; the run
// that takes them over names it once in TakenOver, not once a store.
func TestAcquireReportsATakeoverOnce(t *testing.T) {
	ctx := context.Background()
	stores, files, _ := manyStores(t, 5, locktest.NoWait())
	dead := holder("DEAD")
	dead.Expires = t0.Add(-time.Second)
	for _, f := range files {
		b, _ := json.Marshal(dead)
		if err := os.WriteFile(f.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Acquire(ctx, stores, holder("A"), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	if len(l.TakenOver) != 1 || l.TakenOver[0].ID != tok("DEAD") {
		t.Errorf("TakenOver = %+v, want DEAD once", l.TakenOver)
	}
}

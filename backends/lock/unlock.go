package lock

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/site-tools/site/compiler/words"
)

// This file is site unlock's work: list who holds a tenant's lock and,
// once GATE-LOCK-BREAK is acknowledged, break it. The command keeps
// the flags, the gate and the exit codes.

// Unlock writes on w who holds tenant's lock in s (host, pid, start,
// command, whether the lease runs), as of now, and breaks every entry
// when brk is true. It returns how many entries were held: 0 when the
// tenant is not locked (said on w), and nothing is changed unless brk.
func Unlock(ctx context.Context, w io.Writer, tenant string, s Store, brk bool, now time.Time) (held int, err error) {
	hs, err := s.Holders(ctx)
	if err != nil {
		return 0, fmt.Errorf("tenant %s: reading its lock in %s: %w", tenant, s.Where(), err)
	}
	if len(hs) == 0 {
		fmt.Fprintf(w, "tenant %s is not locked: no lock entry in %s.\n", tenant, somePlaces([]string{s.Where()}))
		return 0, nil
	}
	fmt.Fprintf(w, "tenant %s's apply lock:\n", tenant)
	// One line a holder, however many zones it holds the lock in (a
	// tenant of 40 zones printed the same holder 40 times).
	var order []string
	places := map[string][]string{}
	holders := map[string]Holder{}
	for _, h := range hs {
		key := h.ID + "\x00" + string(h.State)
		if _, ok := places[key]; !ok {
			order = append(order, key)
			holders[key] = h
		}
		places[key] = append(places[key], s.Where())
	}
	for _, key := range order {
		h := holders[key]
		state := "lease expired: the holder is taken for dead"
		if h.Live(now) {
			state = "lease still running: the holder may be alive"
		}
		fmt.Fprintf(w, "  - %s in %s (%s)\n", h, somePlaces(places[key]), state)
	}
	if !brk {
		return len(hs), nil
	}
	for _, h := range hs {
		if err := s.Break(ctx, h); err != nil {
			return len(hs), fmt.Errorf("tenant %s: breaking its lock in %s: %w", tenant, s.Where(), err)
		}
	}
	fmt.Fprintf(w, "broke tenant %s's apply lock (%s).\n", tenant, words.Count(len(hs), "entry"))
	return len(hs), nil
}

// somePlaces names where a lock lives: all of them when a few, else the
// first three and how many more.
func somePlaces(where []string) string {
	if len(where) <= 3 {
		return strings.Join(where, ", ")
	}
	return fmt.Sprintf("%s and %d more (%d places)", strings.Join(where[:3], ", "), len(where)-3, len(where))
}

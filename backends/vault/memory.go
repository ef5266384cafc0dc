package vault

import (
	"context"
	"strings"
)

// memory is what one run has learned about one of the operator's stores: which
// address answered and which did not, and why. It lets the later secret
// steps of a run skip an address that already timed out, so a cold start
// (INCIDENTS.md §1) costs the timeout once per run, not once per secret.
//
// It lives only as long as the run's Driver (see Driver.memory); nothing
// is written to disk, so every run observes the stores afresh.
type memory struct {
	// turn admits one read of the store at a time. It is a channel, not
	// a mutex, so a step waiting for its turn still honours its context.
	// Holding it across the whole read is what keeps two concurrent
	// steps from both waiting out the same silent address: the second
	// starts only once the first has recorded what it found.
	turn chan struct{}

	// The fields below are read and written only while holding turn.

	// failed holds the addresses that did not answer at all (timed out,
	// refused, name does not resolve, unusable), with the attempt that
	// showed it. Addresses that answered, even with a refusal or a 503,
	// are not here: asking them again costs one round trip, and a
	// sealed store may have been unsealed since.
	failed map[string]attempt
	// answered is the address that last gave an answer about a secret
	// (the secret, or a final refusal); it is tried first.
	answered string
	// loginToken is the token this run's AppRole login got from the
	// store, used by the run's later reads and its lock instead of a
	// second login: a secret_id may be good for one use only
	// (secret_id_num_uses), and every address of a store is one Vault.
	loginToken string
}

// lock waits for the store's turn, or for ctx to end.
func (m *memory) lock(ctx context.Context) error {
	select {
	case m.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *memory) unlock() { <-m.turn }

// order returns addrs with the address that answered earlier in the run
// first, the others in their given order.
func (m *memory) order(addrs []string) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if a == m.answered {
			out = append(out, a)
		}
	}
	for _, a := range addrs {
		if a != m.answered {
			out = append(out, a)
		}
	}
	return out
}

// storeKey names a store as a step reaches it: its name in site.cue and the
// addresses it tries, in order (after SITE_VAULT_ADDRS and VAULT_ADDR).
func storeKey(vault string, addrs []string) string {
	return vault + "\x00" + strings.Join(addrs, "\x00")
}

// memory returns what this run has learned about the store named by
// key, creating it on first use. A Driver serves one run (cmd/site
// builds the backends per run), so what it holds is the run's memory and
// goes with it.
func (d *Driver) memory(key string) *memory {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stores == nil {
		d.stores = map[string]*memory{}
	}
	m := d.stores[key]
	if m == nil {
		m = &memory{turn: make(chan struct{}, 1), failed: map[string]attempt{}}
		d.stores[key] = m
	}
	return m
}

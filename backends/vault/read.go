package vault

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// reader reads one secret, trying each address in turn.
type reader struct {
	timeout time.Duration
	run     *backends.Run
	sec     *graph.Secret
	driver  *Driver // holds what this run learned about the store's addresses
	// mem is what this run learned about the store (driver.memory),
	// set while the reader holds the store's turn.
	mem *memory
	// http carries every request of this read, to whichever address.
	http *http.Client

	// Credentials, resolved once before any address is tried.
	token, roleID, secretID string
	// loginToken is the token an AppRole login returned. It is a secret
	// the executor's redactor does not know, so the reader scrubs it
	// from what the store answers (an answer may quote the token back).
	loginToken string
}

// secret is what one successful read returns.
type secret struct {
	addr    string
	value   string
	version int
	created time.Time
	// passed are the addresses tried before addr, and why they gave
	// nothing, for the report.
	passed []attempt
}

// attempt records why one address did not give the secret.
type attempt struct {
	addr   string
	reason string
	// answered is true when the address answered HTTP at all: the
	// store is reachable there, even if it refused.
	answered bool
	// status is the HTTP status of Vault's refusal, 0 for none.
	status int
	// earlier is set when this attempt was made earlier in the run and
	// remembered, not repeated (see memory), to what it was for
	// ("reading secret P#K in mount M", "reading tenant T's apply lock
	// entry: GET M/data/site-locks/T"). A later step's message says so:
	// it must stand alone, and the earlier request may be one the user
	// never saw named, as site diff's read of the lock entry.
	earlier string
}

// String gives the address and why it failed, as messages list them.
func (a attempt) String() string {
	if a.earlier != "" {
		return a.addr + " (earlier in this run, " + a.earlier + "): " + a.reason
	}
	return a.addr + ": " + a.reason
}

// remember records in the run's memory that att's address did not
// answer, when the run was doing what it says, for later steps to list
// instead of dialling the address again.
func (m *memory) remember(att attempt, doing string) {
	att.earlier = doing
	m.failed[att.addr] = att
}

func (r *reader) mount() string {
	if r.sec.Store.Mount != "" {
		return r.sec.Store.Mount
	}
	return "secret"
}

// addrs lists the addresses to try: the spec's (or SITE_VAULT_ADDRS'),
// then VAULT_ADDR when set, each once (a second try of one address in
// one read would only repeat its failure).
func (r *reader) addrs() []string {
	list := r.sec.Store.Addrs
	if o := strings.TrimSpace(r.run.Getenv("SITE_VAULT_ADDRS")); o != "" {
		list = nil
		for _, a := range strings.Split(o, ",") {
			if a = strings.TrimSpace(a); a != "" {
				list = append(list, a)
			}
		}
	}
	if env := strings.TrimSpace(r.run.Getenv("VAULT_ADDR")); env != "" {
		list = append(list[:len(list):len(list)], env)
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range list {
		if k := strings.TrimRight(a, "/"); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

// prepare does what comes before any address is dialled, for a secret
// read and a lock alike: every address must be one the store may be
// reached at, the paths must be sound, and the HTTP client and the
// credentials are made once for all addresses.
func (r *reader) prepare(addrs []string) error {
	for _, a := range addrs {
		if _, err := endpoint.Check(a, r.sec.Store.Plaintext); err != nil {
			return fmt.Errorf("address of vault %s: %w", r.sec.Store.Name, err)
		}
	}
	if err := r.checkPaths(); err != nil {
		return err
	}
	var err error
	if r.http, err = r.httpClient(); err != nil {
		return err
	}
	return r.credentials()
}

// read tries every address in order. An answer about the secret itself
// (missing, deleted, permission denied, no such key) is final: every
// address of one store serves the same data. A sealed or failing server
// and an address that does not answer move on to the next address.
//
// What the attempts show is remembered for the rest of the run (see
// memory): an address that did not answer is not dialled again by a later
// step, which reports the earlier attempt instead, and the address that
// answered is tried first.
func (r *reader) read(ctx context.Context) (*secret, error) {
	what := fmt.Sprintf("%s#%s in mount %s", r.sec.Ref.Path, r.sec.Ref.Key, r.mount())
	addrs := r.addrs()
	if len(addrs) == 0 {
		if strings.TrimSpace(r.run.Getenv("SITE_VAULT_ADDRS")) != "" {
			return nil, fmt.Errorf("SITE_VAULT_ADDRS is set but names no address (and VAULT_ADDR is unset): list addresses separated by commas, or unset it to use the addrs of vault %s in site.cue", r.sec.Store.Name)
		}
		return nil, fmt.Errorf("vault %s has no address and VAULT_ADDR is unset: add addrs to vaults: %s in site.cue, or export VAULT_ADDR", r.sec.Store.Name, r.sec.Store.Name)
	}
	if err := r.prepare(addrs); err != nil {
		return nil, err
	}
	mem := r.driver.memory(storeKey(r.sec.Store.Name, addrs))
	if err := mem.lock(ctx); err != nil {
		return nil, fmt.Errorf("reading secret %s was interrupted while another step read from the same store: %w", what, err)
	}
	defer mem.unlock()
	r.mem = mem
	var tried []attempt
	order := mem.order(addrs)
	for i, addr := range order {
		if att, ok := mem.failed[addr]; ok {
			tried = append(tried, att)
			continue
		}
		got, att, final := r.readAt(ctx, addr, what)
		if got != nil {
			mem.answered = addr
			got.passed = inOrder(tried, addrs)
			return got, nil
		}
		if ctx.Err() != nil {
			// Interrupted, not unreachable: no gate would help, and
			// nothing is learned about the address.
			return nil, fmt.Errorf("reading secret %s was interrupted: %w", what, ctx.Err())
		}
		if !att.answered {
			mem.remember(att, "reading secret "+what)
		}
		switch {
		case final != nil: // only an address that answered gives a final answer
			mem.answered = addr
		case mem.answered == addr: // it answered before, but not now
			mem.answered = ""
		}
		tried = append(tried, att)
		if final != nil {
			return nil, withTried(final, inOrder(tried[:len(tried)-1], addrs))
		}
		r.movingOn(att, order[i+1:])
	}
	tried = inOrder(tried, addrs)
	for _, a := range tried {
		if a.answered {
			return nil, fmt.Errorf("could not read secret %s of vault %s from any address:\n%s", what, r.sec.Store.Name, list(tried))
		}
	}
	h := hint.Hint{Kind: hint.ReachStore, Gate: string(plan.GateSecretUnreachable)}
	if r.run != nil && r.run.Acked[plan.GateSecretUnreachable] {
		// Given already: this run defers them.
		h.Gate = ""
	}
	return nil, &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: hint.Errorf(h,
		"no address of vault %s answered, so secret %s cannot be read:\n%s", r.sec.Store.Name, what, list(tried))}
}

// movingOn tells the run that an address gave nothing and which address
// is dialled next, if any: an address is given up on after as long as a
// slow request takes to be named (5 s), so the fall-back to the next one
// would otherwise go unsaid. rest are the addresses after it.
func (r *reader) movingOn(att attempt, rest []string) {
	for _, next := range rest {
		if _, ok := r.mem.failed[next]; !ok {
			r.run.Say(fmt.Sprintf("vault %s: %s; trying %s next", r.sec.Store.Name, att, next))
			return
		}
	}
}

// inOrder sorts attempts into the order of addrs, so that a message
// lists addresses as the spec does even when the one that answered
// earlier in the run was tried first.
func inOrder(tried []attempt, addrs []string) []attempt {
	out := make([]attempt, 0, len(tried))
	for _, a := range addrs {
		for _, t := range tried {
			if t.addr == a {
				out = append(out, t)
			}
		}
	}
	return out
}

func list(tried []attempt) string {
	var b strings.Builder
	for i, a := range tried {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  tried %s", a)
	}
	return b.String()
}

// withTried adds the addresses that did not answer before the final one.
func withTried(err error, before []attempt) error {
	if len(before) == 0 {
		return err
	}
	parts := make([]string, len(before))
	for i, a := range before {
		parts[i] = a.String()
	}
	return fmt.Errorf("%w (addresses tried before it did not answer: %s)", err, strings.Join(parts, "; "))
}

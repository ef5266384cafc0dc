// Package vault resolves the secrets site needs (DNS provider API tokens)
// from a tenant's Vault or OpenBao KV v2 store.
//
// A secret step reads one key of one KV v2 secret and hands the value to
// the run (runstate.State.SetSecret); it never changes the store, so it
// plans no changes. The only thing site writes to a store is a tenant's
// apply lock (lock.go), the secret site-locks/<tenant>. Its fingerprint is a hash of the secret's version
// metadata, never of the value.
//
// The store's addresses are tried in order, then VAULT_ADDR when set
// (INCIDENTS.md §1: the public name of a new tenant's store resolves only
// after the DNS phase that needs the secret, so an internal address or an
// override must be able to answer instead). Each address gets one attempt
// with a short timeout and no client retries. When no address answers,
// Plan returns a *backends.GatedError with plan.GateSecretUnreachable that
// lists every address tried and why it failed; acknowledging the gate
// defers the steps that need the secret.
//
// A run remembers what it learned about each store (memory.go):
// an address that did not answer is not dialled again by the run's later
// secret steps, which list the earlier attempt and what it was for
// ("(earlier in this run, reading tenant sjc's apply lock entry: ...)")
// in their messages instead, and the address that answered is tried
// first. So a run with N secrets waits out a silent address once, not N
// times. A store with an AppRole is logged in to once per run, for its
// lock and all its secrets: a secret_id may be good for one login only. Steps of one store take turns, so concurrent steps do not both
// wait for the same timeout. The memory is held by the Driver, which
// serves one run: every run builds its own and so observes the stores
// afresh, and nothing is written to disk.
//
// Environment:
//
//	VAULT_ADDR        tried after site.cue's addresses (the documented override)
//	SITE_VAULT_ADDRS  comma-separated; when set, replaces site.cue's addresses
//	                  (for tests and for operators whose spec addresses cannot
//	                  be reached from where site runs)
//	VAULT_CACERT, VAULT_CACERT_BYTES, VAULT_CAPATH
//	                  the CA that signed the store's certificate, when it is
//	                  not in the system roots; VAULT_CLIENT_CERT and
//	                  VAULT_CLIENT_KEY for a client certificate,
//	                  VAULT_TLS_SERVER_NAME for the name to verify
//	VAULT_SKIP_VERIFY refused: certificates are always verified
//
// All are read through Run.Getenv, not by the Vault library from the
// process environment. Every address follows backends/endpoint's rules,
// checked before any request. A TLS failure at an address (a
// certificate that does not verify, a server that does not speak TLS)
// stops the read with the address and the reason: it is never a reason
// to try the next address, which may be plain http. Secret paths and
// mounts must be in normal form (path.go). Secret values never appear
// in any output, plan, log or error this package produces.
package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
)

// DefaultTimeout bounds the attempt on each address. It is short because
// an address that does not answer quickly is usually not reachable at all
// from where site runs, and the next address may be.
const DefaultTimeout = 5 * time.Second

// Driver reads secrets for plan.PhaseSecrets steps. One Driver serves one
// run, whose steps may call it concurrently; make a new one for the next
// run. Use it through a pointer.
type Driver struct {
	// Timeout bounds each address's attempt (login and read together);
	// DefaultTimeout when zero.
	Timeout time.Duration

	mu     sync.Mutex
	stores map[string]*memory // by storeKey
}

// New returns a Driver with the default timeout.
func New() *Driver { return &Driver{Timeout: DefaultTimeout} }

// detail is what Plan observed; it carries no secret value.
type detail struct {
	Addr    string
	Version int
	Passed  []string // the addresses tried before Addr, with why
}

// typed is the driver as a backends.Driver: its plans carry where the
// secret was read.
func (d *Driver) typed() backends.Typed[detail] {
	return backends.Typed[detail]{Name: "vault", PlanD: d.plan, ApplyD: d.apply}
}

// Plan reads the step's secret and records it in run. It returns no
// changes: a secret step never writes to a secret store.
func (d *Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return d.typed().Plan(ctx, step, run)
}

// Apply does nothing: the secret was read and recorded during Plan, which
// the executor runs in the same process before any Apply.
func (d *Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return d.typed().Apply(ctx, sp, run)
}

func (d *Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, detail, error) {
	if step.Secret == nil || step.Secret.Store == nil {
		return nil, detail{}, fmt.Errorf("step %s: not a secret step with a store", step.ID)
	}
	r := &reader{timeout: d.timeout(), run: run, sec: step.Secret, driver: d}
	got, err := r.read(ctx)
	if err != nil {
		return nil, detail{}, err // the executor names the step
	}
	if err := runstate.Secrets(run).SetSecret(step.ID, got.value); err != nil {
		return nil, detail{}, err
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s/%s#%s v%d %s", r.mount(), step.Secret.Ref.Path,
		step.Secret.Ref.Key, got.version, got.created.UTC().Format(time.RFC3339Nano))))
	return &backends.StepPlan{Step: step, Fingerprint: hex.EncodeToString(h[:])},
		detail{Addr: got.addr, Version: got.version, Passed: describeAll(got.passed)}, nil
}

// apply says where the secret was read.
func (d *Driver) apply(ctx context.Context, sp *backends.StepPlan, det detail, run *backends.Run) (*backends.StepResult, error) {
	note := fmt.Sprintf("%s: read version %d from %s", sp.Step.ID, det.Version, det.Addr)
	if len(det.Passed) > 0 {
		note += " (passed over " + strings.Join(det.Passed, "; ") + ")"
	}
	return &backends.StepResult{Notes: []string{note}}, nil
}

// describeAll is each attempt as the report names it.
func describeAll(tried []attempt) []string {
	out := make([]string, len(tried))
	for i, a := range tried {
		out[i] = a.String()
	}
	return out
}

func (d *Driver) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return DefaultTimeout
}

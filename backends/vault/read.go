package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// reader reads one secret, trying each address in turn.
type reader struct {
	timeout time.Duration
	run     *backends.Run
	sec     *graph.Secret
	driver  *Driver // holds what this run learned about the store's addresses

	// Credentials, resolved once before any address is tried.
	token, roleID, secretID string
	// loginToken is the token an AppRole login returned. It is a secret
	// the executor's redactor does not know, so the reader scrubs it
	// from what the store answers (an answer may quote the token back).
	loginToken string
}

// scrub hides the AppRole login token in text taken from an answer.
func (r *reader) scrub(s string) string {
	if r.loginToken == "" {
		return s
	}
	return strings.ReplaceAll(s, r.loginToken, "[redacted]")
}

// secret is what one successful read returns.
type secret struct {
	addr    string
	value   string
	version int
	created time.Time
}

// attempt records why one address did not give the secret.
type attempt struct {
	addr   string
	reason string
	// answered is true when the address answered HTTP at all: the
	// store is reachable there, even if it refused.
	answered bool
	// earlier is true when this attempt was made by an earlier step of
	// the run and remembered, not repeated (see memory).
	earlier bool
}

// String gives the address and why it failed, as messages list them.
func (a attempt) String() string {
	if a.earlier {
		return a.addr + " (earlier in this run): " + a.reason
	}
	return a.addr + ": " + a.reason
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
	if err := r.credentials(); err != nil {
		return nil, err
	}
	mem := r.driver.memory(r.run, storeKey(r.sec.Store.Name, addrs))
	if err := mem.lock(ctx); err != nil {
		return nil, fmt.Errorf("reading secret %s was interrupted while another step read from the same store: %w", what, err)
	}
	defer mem.unlock()
	var tried []attempt
	for _, addr := range mem.order(addrs) {
		if att, ok := mem.failed[addr]; ok {
			tried = append(tried, att)
			continue
		}
		got, att, final := r.readAt(ctx, addr, what)
		if got != nil {
			mem.answered = addr
			return got, nil
		}
		if ctx.Err() != nil {
			// Interrupted, not unreachable: no gate would help, and
			// nothing is learned about the address.
			return nil, fmt.Errorf("reading secret %s was interrupted: %w", what, ctx.Err())
		}
		if !att.answered {
			rem := att
			rem.earlier = true // as later steps report it
			mem.failed[addr] = rem
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
	}
	tried = inOrder(tried, addrs)
	for _, a := range tried {
		if a.answered {
			return nil, fmt.Errorf("could not read secret %s of vault %s from any address:\n%s", what, r.sec.Store.Name, list(tried))
		}
	}
	return nil, &backends.GatedError{Gate: plan.GateSecretUnreachable, Err: fmt.Errorf(
		"no address of vault %s answered, so secret %s cannot be read:\n%s\n"+
			"what to do: make one of these addresses reachable, or export VAULT_ADDR with one that is "+
			"(it is tried after site.cue's addresses), or pass --ack %s to defer the steps that need this secret "+
			"and converge everything else first", r.sec.Store.Name, what, list(tried), plan.GateSecretUnreachable)}
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

// readAt makes one attempt at addr. It returns the secret, or the attempt
// and, when the answer is final, the error to report.
func (r *reader) readAt(ctx context.Context, addr, what string) (*secret, attempt, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	att := attempt{addr: addr}
	client, err := r.client(addr)
	if err != nil {
		// A malformed address is reported with the others: a later one
		// may still answer.
		att.reason = "unusable address: " + err.Error()
		return nil, att, nil
	}
	if err := r.login(ctx, client); err != nil {
		att.reason, att.answered = describe(err, r.timeout)
		if !att.answered || isServerTrouble(err) {
			return nil, att, nil
		}
		return nil, att, fmt.Errorf("AppRole login at %s failed: %s: check the role_id and secret_id credentials and the AppRole mount", addr, att.reason)
	}
	kv, err := client.KVv2(r.mount()).Get(ctx, r.sec.Ref.Path)
	if err != nil {
		att.reason, att.answered = describe(err, r.timeout)
		att.reason = r.scrub(att.reason)
		var re *api.ResponseError
		switch {
		case !att.answered, isServerTrouble(err):
			return nil, att, nil
		case errors.Is(err, api.ErrSecretNotFound):
			return nil, att, fmt.Errorf("secret %s does not exist at %s: write it (vault kv put -mount=%s %s %s=...) or fix the reference in the spec",
				what, addr, r.mount(), r.sec.Ref.Path, r.sec.Ref.Key)
		case errors.As(err, &re) && re.StatusCode == http.StatusForbidden:
			return nil, att, fmt.Errorf("permission denied reading secret %s at %s: the token in %s has no policy that allows read on %s/data/%s; grant it or use another token",
				what, addr, r.tokenSource(), r.mount(), r.sec.Ref.Path)
		default:
			return nil, att, fmt.Errorf("reading secret %s at %s: %s", what, addr, att.reason)
		}
	}
	if kv.Data == nil {
		att.answered = true
		att.reason = "latest version is deleted"
		v := 0
		if kv.VersionMetadata != nil {
			v = kv.VersionMetadata.Version
		}
		return nil, att, fmt.Errorf("secret %s at %s: its latest version (%d) is deleted: undelete it (vault kv undelete -mount=%s -versions=%d %s) or write a new version",
			what, addr, v, r.mount(), v, r.sec.Ref.Path)
	}
	raw, ok := kv.Data[r.sec.Ref.Key]
	if !ok {
		keys := make([]string, 0, len(kv.Data))
		for k := range kv.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		att.answered, att.reason = true, "no such key"
		return nil, att, fmt.Errorf("secret %s at %s has no key %q (its keys: %s): add the key or fix the reference in the spec",
			what, addr, r.sec.Ref.Key, strings.Join(keys, ", "))
	}
	val, ok := raw.(string)
	if !ok || val == "" {
		att.answered, att.reason = true, "key is not a non-empty string"
		// The type is safe to name; the value is not printed.
		return nil, att, fmt.Errorf("secret %s at %s: key %q holds a %T, not a non-empty string: store the token as a string",
			what, addr, r.sec.Ref.Key, raw)
	}
	out := &secret{addr: addr, value: val}
	if kv.VersionMetadata != nil {
		out.version, out.created = kv.VersionMetadata.Version, kv.VersionMetadata.CreatedTime
	}
	return out, att, nil
}

// client builds a client for one address: one attempt, no retries (the
// library's default retries a refused connection for seconds, which
// would delay the fallback to the next address), short timeout.
func (r *reader) client(addr string) (*api.Client, error) {
	cfg := api.DefaultConfig()
	if cfg.Error != nil {
		return nil, cfg.Error
	}
	cfg.Address = addr
	cfg.AgentAddress = ""
	cfg.MaxRetries = 0
	cfg.Timeout = r.timeout
	c, err := api.NewClient(cfg)
	if err != nil {
		return nil, err
	}
	// NewClient picks VAULT_TOKEN from the process environment; site
	// decides the token itself, from the spec.
	c.ClearToken()
	if r.token != "" {
		c.SetToken(r.token)
	}
	return c, nil
}

// credentials resolves the token, or the AppRole's role and secret ids.
func (r *reader) credentials() error {
	var err error
	if ar := r.sec.Store.AppRole; ar != nil {
		if r.roleID, err = r.run.Credential(ar.RoleID); err != nil {
			return fmt.Errorf("AppRole role_id for vault %s: %w", r.sec.Store.Name, err)
		}
		if r.secretID, err = r.run.Credential(ar.SecretID); err != nil {
			return fmt.Errorf("AppRole secret_id for vault %s: %w", r.sec.Store.Name, err)
		}
		return nil
	}
	if r.token, err = r.run.Credential(r.tokenCred()); err != nil {
		return fmt.Errorf("token for vault %s: %w", r.sec.Store.Name, err)
	}
	return nil
}

func (r *reader) tokenCred() model.Credential {
	c := r.sec.Store.Token
	if c.Env == "" && c.Vault == nil {
		c.Env = "VAULT_TOKEN"
	}
	return c
}

func (r *reader) tokenSource() string {
	if r.sec.Store.AppRole != nil {
		return "the AppRole login"
	}
	if c := r.tokenCred(); c.Env != "" {
		return "$" + c.Env
	}
	return "the configured token"
}

// login exchanges the AppRole credentials for a token when the store
// declares an AppRole.
func (r *reader) login(ctx context.Context, c *api.Client) error {
	ar := r.sec.Store.AppRole
	if ar == nil {
		return nil
	}
	mount := ar.Mount
	if mount == "" {
		mount = "approle"
	}
	s, err := c.Logical().WriteWithContext(ctx, "auth/"+mount+"/login",
		map[string]any{"role_id": r.roleID, "secret_id": r.secretID})
	if err != nil {
		return err
	}
	if s == nil || s.Auth == nil || s.Auth.ClientToken == "" {
		return errors.New("AppRole login answered without a client token")
	}
	c.SetToken(s.Auth.ClientToken)
	r.loginToken = s.Auth.ClientToken
	return nil
}

// describe says in a few words why an attempt failed, and whether the
// server answered at all. Network errors are reduced to their cause
// ("connection refused", "no such host", "timed out after 5s").
func describe(err error, timeout time.Duration) (reason string, answered bool) {
	var re *api.ResponseError
	if errors.As(err, &re) {
		msg := strings.Join(re.Errors, "; ")
		if msg == "" {
			msg = http.StatusText(re.StatusCode)
		}
		if re.StatusCode == http.StatusServiceUnavailable && strings.Contains(msg, "sealed") {
			return "sealed (HTTP 503 \"Vault is sealed\"): unseal it (bao/vault operator unseal)", true
		}
		return fmt.Sprintf("HTTP %d: %s", re.StatusCode, msg), true
	}
	if errors.Is(err, api.ErrSecretNotFound) {
		return "secret not found (HTTP 404)", true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "name does not resolve (" + dnsErr.Err + ")", false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", timeout), false
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no answer within %s", timeout), false
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err.Error(), false
	}
	return err.Error(), false
}

// isServerTrouble is true for answers that say this server cannot serve
// now (sealed, 5xx, rate limited) rather than anything about the secret.
func isServerTrouble(err error) bool {
	var re *api.ResponseError
	return errors.As(err, &re) && (re.StatusCode >= 500 || re.StatusCode == http.StatusTooManyRequests)
}

package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/vault/vaulttest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

const (
	// Not "hvs.…": Vault refuses a chosen token ID with its own prefix.
	testToken = "test-token-6f1c"
	testValue = "cf-secret-value-93ab"
)

// closedAddr returns a loopback URL on which nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func newRun(env map[string]string) *backends.Run {
	run := runstate.Start(backends.NewRun())
	run.Getenv = func(k string) string { return env[k] }
	return run
}

func secretStep(addrs ...string) *graph.Step {
	store := &model.Vault{Name: "bao", Addrs: addrs, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	ref := model.VaultRef{Vault: "bao", Path: "dns/cloudflare", Key: "token"}
	return &graph.Step{ID: graph.SecretStepID(ref), Phase: plan.PhaseSecrets,
		Secret: &graph.Secret{Store: store, Ref: ref}}
}

// newVault starts a real Vault dev server (stopped when t ends) whose
// root token is testToken and which holds bao's secret dns/cloudflare.
func newVault(t *testing.T) *vaulttest.Dev {
	t.Helper()
	s := vaulttest.StartDev(t, testToken)
	s.Put("secret", "dns/cloudflare", map[string]any{"token": testValue, "other": "x"})
	return s
}

// readSecret returns what a step recorded in run, through the same path
// a DNS driver uses.
func readSecret(t *testing.T, run *backends.Run, step *graph.Step) string {
	t.Helper()
	v, err := runstate.Credentials(run).Credential(run.Getenv, model.Credential{Vault: &step.Secret.Ref})
	if err != nil {
		t.Fatalf("Credential: %v", err)
	}
	return v
}

func TestPlanReadsSecret(t *testing.T) {
	srv := newVault(t)
	step := secretStep(srv.URL)
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	d := New()
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if got := readSecret(t, run, step); got != testValue {
		t.Errorf("secret not recorded in run")
	}
	if len(sp.Changes) != 0 {
		t.Errorf("got %d changes, want 0", len(sp.Changes))
	}
	if sp.Fingerprint == "" || strings.Contains(sp.Fingerprint, testValue) {
		t.Errorf("fingerprint %q: want a non-empty hash that is not the value", sp.Fingerprint)
	}
	again, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	if again.Fingerprint != sp.Fingerprint {
		t.Errorf("fingerprint changed without a new version: got %q, want %q", again.Fingerprint, sp.Fingerprint)
	}
	srv.Put("secret", "dns/cloudflare", map[string]any{"token": "rotated-value"})
	rotated, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.Fingerprint == sp.Fingerprint {
		t.Errorf("fingerprint did not change with a new version")
	}
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	for _, n := range res.Notes {
		if strings.Contains(n, testValue) || strings.Contains(n, testToken) {
			t.Errorf("note %q contains a secret", n)
		}
	}
}

func TestPlanAddressOrder(t *testing.T) {
	srv := newVault(t)
	closed := closedAddr(t)
	tests := []struct {
		name  string
		addrs []string
		env   map[string]string
	}{
		{"second spec address answers", []string{closed, srv.URL}, nil},
		{"VAULT_ADDR is tried after the spec", []string{closed}, map[string]string{"VAULT_ADDR": srv.URL}},
		// The spec address would be a private one in real use; the
		// override replaces it, so it is never dialled.
		{"SITE_VAULT_ADDRS replaces the spec", []string{"http://192.0.2.1:8200"}, map[string]string{"SITE_VAULT_ADDRS": closed + ", " + srv.URL}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"VAULT_TOKEN": testToken}
			for k, v := range tt.env {
				env[k] = v
			}
			run := newRun(env)
			step := secretStep(tt.addrs...)
			sp, err := New().Plan(context.Background(), step, run)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if got := detailOf(t, sp).Addr; got != srv.URL {
				t.Errorf("read from %q, want %q", got, srv.URL)
			}
			if readSecret(t, run, step) != testValue {
				t.Errorf("wrong secret recorded")
			}
		})
	}
}

// TestPlanUnreachableIsGated: an unreachable store is gated, and the
// message offers the gate only to a run that has not acknowledged it.
func TestPlanUnreachableIsGated(t *testing.T) {
	for _, acked := range []bool{false, true} {
		a, b := closedAddr(t), closedAddr(t)
		run := newRun(map[string]string{"VAULT_TOKEN": testToken})
		run.Acked[plan.GateSecretUnreachable] = acked
		_, err := New().Plan(context.Background(), secretStep(a, b), run)
		var ge *backends.GatedError
		if !errors.As(err, &ge) {
			t.Fatalf("got %v, want a *backends.GatedError", err)
		}
		if ge.Gate != plan.GateSecretUnreachable {
			t.Errorf("got gate %q, want %q", ge.Gate, plan.GateSecretUnreachable)
		}
		for _, want := range []string{a, b, "connection refused", "VAULT_ADDR"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
		if offered := strings.Contains(err.Error(), "--ack "+string(plan.GateSecretUnreachable)); offered == acked {
			t.Errorf("acknowledged %v: the error offers --ack %s: %v, want %v:\n%v", acked, plan.GateSecretUnreachable, offered, !acked, err)
		}
	}
}

func TestPlanTimeoutMovesOn(t *testing.T) {
	srv := newVault(t)
	// A listener that accepts but never answers stands for an address
	// that swallows packets.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	d := &Driver{Timeout: 300 * time.Millisecond}
	sp, err := d.Plan(context.Background(), secretStep("http://"+l.Addr().String(), srv.URL), run)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if got := detailOf(t, sp).Addr; got != srv.URL {
		t.Errorf("read from %q, want %q", got, srv.URL)
	}
}

func TestPlanErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*vaulttest.Dev)
		token string
		key   string
		want  string
		hint  hint.Kind // what it says to do, when it says so as a hint
	}{
		{"sealed", func(s *vaulttest.Dev) { s.Seal(true) }, testToken, "token", "sealed", hint.None},
		{"missing secret", func(s *vaulttest.Dev) { s.Put("secret", "elsewhere", map[string]any{"a": "b"}) }, testToken, "token", "does not exist", hint.WriteSecret},
		{"soft-deleted latest version", func(s *vaulttest.Dev) {
			s.Put("secret", "dns/cloudflare", map[string]any{"token": testValue})
			s.SoftDelete("secret", "dns/cloudflare")
		}, testToken, "token", "latest version (1) is deleted", hint.ByHand},
		{"destroyed latest version", func(s *vaulttest.Dev) {
			s.Put("secret", "dns/cloudflare", map[string]any{"token": testValue})
			s.Destroy("secret", "dns/cloudflare")
		}, testToken, "token", "latest version (1) is destroyed", hint.WriteSecret},
		// Vault answers a token it does not know (expired, revoked, of
		// another Vault) with 403 "permission denied" and "invalid
		// token": no policy would help it.
		{"invalid token", func(s *vaulttest.Dev) { s.Put("secret", "dns/cloudflare", map[string]any{"token": testValue}) }, "hvs.wrong", "token",
			`permission denied reading secret dns/cloudflare#token in mount secret at ` + "%s" + `: Vault does not accept the token in $VAULT_TOKEN ("invalid token": it expired, was revoked, or belongs to another Vault)`, hint.RenewToken},
		{"token without a policy for the path", func(s *vaulttest.Dev) {
			s.Put("secret", "dns/cloudflare", map[string]any{"token": testValue})
			s.AddToken("other-paths-only", "other", `path "secret/data/other/*" { capabilities = ["read"] }`)
		}, "other-paths-only", "token", "has no policy that allows read on secret/data/dns/cloudflare", hint.GrantToken},
		{"missing key", func(s *vaulttest.Dev) { s.Put("secret", "dns/cloudflare", map[string]any{"api": testValue}) }, testToken, "token", `has no key "token" (its keys: api)`, hint.None},
		{"not a string", func(s *vaulttest.Dev) { s.Put("secret", "dns/cloudflare", map[string]any{"token": 42}) }, testToken, "token", "not a non-empty string", hint.None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := vaulttest.StartDev(t, testToken)
			tt.setup(srv)
			run := newRun(map[string]string{"VAULT_TOKEN": tt.token})
			step := secretStep(srv.URL)
			step.Secret.Ref.Key = tt.key
			_, err := New().Plan(context.Background(), step, run)
			if err == nil {
				t.Fatal("got no error")
			}
			var ge *backends.GatedError
			if errors.As(err, &ge) {
				t.Errorf("got a gated error for a store that answered: %v", err)
			}
			want := tt.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, srv.URL)
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got %q, want it to contain %q", err, want)
			}
			if k := hint.KindOf(err); k != tt.hint {
				t.Errorf("hint %v, want %v (%v)", k, tt.hint, err)
			}
			for _, secret := range []string{testValue, testToken, "hvs.wrong", "other-paths-only"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q contains a secret", err)
				}
			}
		})
	}
}

func TestPlanSealedThenNextAddress(t *testing.T) {
	sealed := newVault(t)
	sealed.Seal(true)
	open := newVault(t)
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	sp, err := New().Plan(context.Background(), secretStep(sealed.URL, open.URL), run)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if got := detailOf(t, sp).Addr; got != open.URL {
		t.Errorf("read from %q, want %q", got, open.URL)
	}
}

func TestPlanMissingToken(t *testing.T) {
	srv := newVault(t)
	_, err := New().Plan(context.Background(), secretStep(srv.URL), newRun(nil))
	if err == nil || !strings.Contains(err.Error(), "VAULT_TOKEN") {
		t.Fatalf("got %v, want an error naming VAULT_TOKEN", err)
	}
	if n := srv.Count("read"); n != 0 {
		t.Errorf("got %d reads without a token, want 0", n)
	}
}

func TestPlanAppRole(t *testing.T) {
	tests := []struct {
		name     string
		secretID string
		wantErr  string
	}{
		{"valid", "s3cret-id", ""},
		// Vault cannot tell an expired or used-up secret_id from a wrong
		// one ("invalid role or secret ID"), so the message names both,
		// with the variables and the mount.
		{"wrong secret id", "nope", "AppRole login at %s (mount approle) failed: HTTP 400: invalid role or secret ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newVault(t)
			srv.AddRole("role-1", "s3cret-id")
			step := secretStep(srv.URL)
			step.Secret.Store.AppRole = &model.AppRole{RoleID: model.Credential{Env: "ROLE_ID"}, SecretID: model.Credential{Env: "SECRET_ID"}}
			run := newRun(map[string]string{"ROLE_ID": "role-1", "SECRET_ID": tt.secretID})
			_, err := New().Plan(context.Background(), step, run)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if readSecret(t, run, step) != testValue {
					t.Error("wrong secret recorded")
				}
				if srv.Count("login") != 1 {
					t.Errorf("got %d logins, want 1", srv.Count("login"))
				}
				return
			}
			want := strings.Replace(tt.wantErr, "%s", srv.URL, 1)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want an error containing %q", err, want)
			}
			wantHint := hint.Hint{Kind: hint.NewSecretID, Command: "vault write -f auth/approle/role/ROLE/secret-id", Setting: "$SECRET_ID", Spec: "$ROLE_ID"}
			if h := hint.Of(err); h != wantHint {
				t.Errorf("hint %+v, want %+v", h, wantHint)
			}
			if strings.Contains(err.Error(), tt.secretID) {
				t.Errorf("error %q contains the secret id", err)
			}
		})
	}
}

// TestAppRoleLogsInOncePerRun: a run logs in to a store once, for its
// apply lock and every secret it reads there. A secret_id made for one
// use (secret_id_num_uses=1, as a CI job is often given) otherwise
// served the lock's login, and the secret read that followed was refused
// as "permission denied", so no run with such a secret_id could work.
func TestAppRoleLogsInOncePerRun(t *testing.T) {
	srv := newVault(t)
	srv.AddRole("role-1", "s3cret-id")
	srv.Put("secret", "dns/pdns", map[string]any{"key": "pdns-value"})
	run := newRun(map[string]string{"ROLE_ID": "role-1", "SECRET_ID": "s3cret-id"})
	d := New()
	cf := secretStep(srv.URL)
	cf.Secret.Store.AppRole = &model.AppRole{RoleID: model.Credential{Env: "ROLE_ID"}, SecretID: model.Credential{Env: "SECRET_ID"}}
	ref := model.VaultRef{Vault: "bao", Path: "dns/pdns", Key: "key"}
	pdns := &graph.Step{ID: graph.SecretStepID(ref), Phase: plan.PhaseSecrets, Secret: &graph.Secret{Store: cf.Secret.Store, Ref: ref}}
	if _, err := d.LockStore(context.Background(), cf.Secret.Store, "office1", run, nil); err != nil {
		t.Fatalf("LockStore: %v", err)
	}
	for _, step := range []*graph.Step{cf, pdns} {
		if _, err := d.Plan(context.Background(), step, run); err != nil {
			t.Fatalf("Plan %s: %v", step.ID, err)
		}
	}
	if got := srv.Count("login"); got != 1 {
		t.Errorf("got %d AppRole logins for one run's lock and two secrets, want 1", got)
	}
	// A new run (a new Driver) logs in afresh.
	if _, err := New().Plan(context.Background(), cf, run); err != nil {
		t.Fatalf("Plan in a second run: %v", err)
	}
	if got := srv.Count("login"); got != 2 {
		t.Errorf("got %d logins after a second run, want 2", got)
	}
}

func TestPlanInterruptedIsNotGated(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	_, err := New().Plan(ctx, secretStep(closedAddr(t), closedAddr(t)), run)
	var ge *backends.GatedError
	if err == nil || errors.As(err, &ge) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancellation that offers no gate", err)
	}
}

func TestPlanAddressListedTwice(t *testing.T) {
	closed := closedAddr(t)
	tests := []struct {
		name  string
		addrs []string
		env   map[string]string
	}{
		{"twice in the spec", []string{closed, closed + "/"}, nil},
		{"in the spec and VAULT_ADDR", []string{closed}, map[string]string{"VAULT_ADDR": closed + "/"}},
		{"twice in SITE_VAULT_ADDRS", nil, map[string]string{"SITE_VAULT_ADDRS": closed + "," + closed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"VAULT_TOKEN": testToken}
			for k, v := range tt.env {
				env[k] = v
			}
			_, err := New().Plan(context.Background(), secretStep(tt.addrs...), newRun(env))
			if err == nil {
				t.Fatal("got no error")
			}
			if got := strings.Count(err.Error(), "tried "+closed); got != 1 {
				t.Errorf("got %q, want %s tried once", err, closed)
			}
		})
	}
}

func TestPlanNoAddressSaysWhy(t *testing.T) {
	tests := []struct {
		name  string
		addrs []string
		env   map[string]string
		want  string
	}{
		{"override names none", []string{"http://127.0.0.1:1"}, map[string]string{"SITE_VAULT_ADDRS": " , ,"}, "SITE_VAULT_ADDRS is set but names no address"},
		{"spec names none", nil, nil, "vault bao has no address and VAULT_ADDR is unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"VAULT_TOKEN": testToken}
			for k, v := range tt.env {
				env[k] = v
			}
			step := secretStep("http://127.0.0.1:1")
			step.Secret.Store.Addrs = tt.addrs
			_, err := New().Plan(context.Background(), step, newRun(env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// detailOf is where sp says its secret was read; an error (not a fatal
// one: plans are made on goroutines too) when it carries none.
func detailOf(t *testing.T, sp *backends.StepPlan) detail {
	t.Helper()
	det, err := backends.DetailOf[detail](sp)
	if err != nil {
		t.Error(err)
	}
	return det
}

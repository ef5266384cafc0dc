package vault

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/vault/vaulttest"
)

// TestPlanReadsAKeyBesideALargeOne: KV v2 answers a read with every key
// of the secret, whichever one site wants, and escapes '<', '>' and '&'
// as \u003c (six bytes each). A secret Vault stores (integrated
// storage takes an entry of up to 1 MiB by default; here two mail
// templates of 250 KiB of HTML beside the token, each string within
// Vault's own bound on one) must still be read: the answer's bound is
// there for a server that does not end, not for a real secret.
func TestPlanReadsAKeyBesideALargeOne(t *testing.T) {
	srv := vaulttest.StartDev(t, testToken)
	html := strings.Repeat("<p><b>R&amp;D</b></p>", 250<<10/22)
	srv.Put("secret", "dns/cloudflare", map[string]any{"token": testValue, "welcome": html, "goodbye": html})
	step := secretStep(srv.URL)
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	if _, err := New().Plan(context.Background(), step, run); err != nil {
		t.Fatalf("Plan, with 2 × %d bytes of HTML beside the token: %v", len(html), err)
	}
	if got := readSecret(t, run, step); got != testValue {
		t.Errorf("read %q, want the token", got)
	}
}

package backends

import (
	"errors"
	"testing"

	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestRunStateOfALiteral: what steps hand each other (a secret a secret
// step read, a value computed once, a read left over) works in a Run
// made as a literal, once started (runstate.Start, as the engine does),
// and not only in NewRun's; before, SetSecret on a literal wrote to a
// nil map.
func TestRunStateOfALiteral(t *testing.T) {
	ref := model.VaultRef{Vault: "main", Path: "dns/pdns", Key: "api-key"}
	cred := model.Credential{Vault: &ref}
	tests := []struct {
		name string
		run  func() *Run
	}{
		{"NewRun", func() *Run { return runstate.Start(NewRun()) }},
		{"literal", func() *Run { return runstate.Start(&Run{}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.run()
			if _, err := runstate.Credentials(r).Credential(r.Getenv, cred); !errors.Is(err, ErrSecretNotRead) {
				t.Fatalf("Credential before its secret step: %v, want ErrSecretNotRead", err)
			}
			runstate.Secrets(r).SetSecret(graph.SecretStepID(ref), "s3cr3t-value")
			if v, err := runstate.Credentials(r).Credential(r.Getenv, cred); v != "s3cr3t-value" || err != nil {
				t.Errorf("Credential after SetSecret: %q, %v", v, err)
			}
			if got := NewRedactor(&graph.Graph{}, r).Redact("key s3cr3t-value sent"); got == "key s3cr3t-value sent" {
				t.Errorf("Redact kept the secret: %q", got)
			}
			if v, err := runstate.Memos(r).Once("k", func() (any, error) { return 1, nil }); v != 1 || err != nil {
				t.Errorf("Once: %v, %v", v, err)
			}
			runstate.Memos(r).Leave("read", "zone")
			if v, ok := runstate.Memos(r).Take("read"); !ok || v != "zone" {
				t.Errorf("Take: %v, %v", v, ok)
			}
		})
	}
}

// TestRunStateOnlyFromTheEngine: a Run the engine did not start
// (engine.NewRun, engine.Open: runstate.Start) has no state, and a
// driver handed one fails clearly instead of sharing secrets or memos
// through a state nobody created: reading a credential, recording a
// secret and computing a value once all fail with ErrNoState.
func TestRunStateOnlyFromTheEngine(t *testing.T) {
	ref := model.VaultRef{Vault: "main", Path: "dns/pdns", Key: "api-key"}
	for name, r := range map[string]*Run{"NewRun": NewRun(), "literal": {}} {
		t.Run(name, func(t *testing.T) {
			if _, err := runstate.Credentials(r).Credential(r.Getenv, model.Credential{Vault: &ref}); !errors.Is(err, ErrNoState) {
				t.Errorf("Credential: %v, want ErrNoState", err)
			}
			if err := runstate.Secrets(r).SetSecret(graph.SecretStepID(ref), "s3cr3t-value"); !errors.Is(err, ErrNoState) {
				t.Errorf("SetSecret: %v, want ErrNoState", err)
			}
			calls := 0
			if _, err := runstate.Memos(r).Once("k", func() (any, error) { calls++; return 1, nil }); !errors.Is(err, ErrNoState) || calls != 0 {
				t.Errorf("Once: %v after %d calls, want ErrNoState before any", err, calls)
			}
			if r.Interrupted() {
				t.Error("a run with no state reads as interrupted")
			}
			if runstate.Start(r); r.Interrupted() {
				t.Error("a run just started reads as interrupted")
			}
			if err := runstate.Secrets(r).SetSecret(graph.SecretStepID(ref), "s3cr3t-value"); err != nil {
				t.Errorf("SetSecret once started: %v", err)
			}
		})
	}
}

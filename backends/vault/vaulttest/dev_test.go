package vaulttest

import (
	"os"
	"strings"
	"testing"
)

// TestDevVersionIsBuilt: the version the tests look for in the cache is
// the one vaultserver/go.mod builds and the Makefile names, so a bump
// in one place cannot run the tests against a stale binary.
func TestDevVersionIsBuilt(t *testing.T) {
	for _, f := range []struct{ path, want string }{
		{"vaultserver/go.mod", "require github.com/hashicorp/vault " + Version + "\n"},
		{"../../../Makefile", "VAULT_VERSION := " + Version + "\n"},
	} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), f.want) {
			t.Errorf("%s does not say %q", f.path, strings.TrimSpace(f.want))
		}
	}
	if !strings.Contains(BinPath(), "vault-"+Version) && os.Getenv(EnvBin) == "" {
		t.Errorf("BinPath() = %q, want it keyed by %s", BinPath(), Version)
	}
}

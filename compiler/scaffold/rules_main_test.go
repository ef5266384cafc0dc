package scaffold

import (
	"os"
	"testing"

	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
)

// TestMain gives the compiler the record rules the providers declare,
// as cmd/site does from the provider table before it loads a spec: the
// tests check vet against the rules site ships, not a copy of them.
func TestMain(m *testing.M) {
	compiler.UseRules(providers.RecordRules())
	os.Exit(m.Run())
}

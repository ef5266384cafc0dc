package export

import (
	"os"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/rules"
)

// TestMain gives the compiler the record rules the providers declare,
// as cmd/site does from the provider table before it loads a spec: the
// tests check vet against the rules site ships, not a copy of them.
func TestMain(m *testing.M) {
	compiler.UseRules(rules.NewSet(cloudflare.Rules, powerdns.Rules))
	os.Exit(m.Run())
}

package compiler

import (
	"cmp"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCompilerImportsNoBackendsOrCmd: no package under compiler/
// depends on backends/ or cmd/ (issue 25). The compiler turns specs into
// a model and a graph; what reads live systems sits above it. (Export
// once imported backends for the zone snapshot; it now takes an
// export.Live that backends.BoundExporter implements.)
func TestCompilerImportsNoBackendsOrCmd(t *testing.T) {
	goCmd := "go"
	if runtime.GOROOT() != "" {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`,
		"github.com/site-tools/site/compiler/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(pkg, "github.com/site-tools/site/compiler") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "github.com/site-tools/site/backends") || strings.HasPrefix(imp, "github.com/site-tools/site/cmd") {
				bad = append(bad, pkg+" imports "+imp)
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("compiler packages import backends or cmd:\n%s", strings.Join(bad, "\n"))
	}
}

// providerRuleIdent matches the names provider rules had as compiler
// code (cloudflareTypes, CloudflareServes, CloudflareTTL,
// CloudflareValue, cloudflareIn, CloudflareRate) and any like them.
var providerRuleIdent = regexp.MustCompile(`(?i)^(cloudflare|cf|powerdns|pdns)\w*(types|serves|value|values|ttl|limits|rules|proxy|proxies|proxied|soa|in|rate|rates)$`)

// TestCompilerHoldsNoProviderRules (issue 25): a provider's record rules
// (Cloudflare's TTL range, proxy, SRV target) are the provider's data,
// which vet reads (compiler/rules, UseRules); no non-test file under
// compiler/ declares or names provider-specific rule code, or writes the
// words of a provider's rules itself, so every message about them comes
// from the data.
func TestCompilerHoldsNoProviderRules(t *testing.T) {
	var words []string
	for _, r := range ruleSet() {
		words = append(words, r.Instead, r.IgnoreValue)
		for _, a := range r.ApexOnly {
			words = append(words, a.Why, a.Below)
		}
		for _, v := range r.Values {
			words = append(words, v.Why)
			for _, means := range v.Refused {
				words = append(words, means)
			}
		}
		if r.Proxy != nil {
			words = append(words, r.Proxy.Says)
		}
		if r.SOA != nil {
			words = append(words, r.SOA.Primary)
		}
	}
	words = slices.DeleteFunc(words, func(w string) bool { return len(w) < 12 }) // "(empty)", "automatic": not a rule's words alone
	if len(words) == 0 {
		t.Fatal("no provider rules with words to look for; TestMain gives the providers' rules")
	}
	var bad []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			return cmp.Or(err, filepath.SkipDir)
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				if providerRuleIdent.MatchString(n.Name) {
					bad = append(bad, path+": names "+n.Name)
				}
			case *ast.BasicLit:
				for _, w := range words {
					if n.Kind == token.STRING && strings.Contains(n.Value, w) {
						bad = append(bad, path+": writes "+strconv.Quote(w))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("provider rules written into the compiler, not read from the providers' data:\n%s", strings.Join(bad, "\n"))
	}
}

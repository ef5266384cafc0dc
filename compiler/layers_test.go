package compiler

import (
	"os/exec"
	"path/filepath"
	"runtime"
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

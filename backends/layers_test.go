package backends

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBackendsDependOnNoCUE: no package under backends/ depends on
// cuelang.org/go. A backend reads the typed model; CUE is the
// compiler's loader alone (libvirt once pulled 96 CUE packages in for
// three helpers, now in compiler/visible and compiler/model). Listed
// with and without the libvirt build tag, so the libvirt backend is
// checked too.
func TestBackendsDependOnNoCUE(t *testing.T) {
	for _, tags := range []string{"", "libvirt_dlopen"} {
		t.Run("tags="+tags, func(t *testing.T) {
			cmd := exec.Command(goTool(), "list", "-tags", tags, "-deps",
				"-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/site-tools/site/backends/...")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, stderrOf(err))
			}
			var cue, importers []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				pkg, imports, _ := strings.Cut(line, " ")
				if strings.HasPrefix(pkg, "cuelang.org/") {
					cue = append(cue, pkg)
				}
				for _, imp := range strings.Fields(imports) {
					if strings.HasPrefix(imp, "cuelang.org/") && !strings.HasPrefix(pkg, "cuelang.org/") {
						importers = append(importers, pkg+" imports "+imp)
					}
				}
			}
			if len(cue) > 0 {
				t.Errorf("backends/... depend on %d cuelang.org packages; a backend must not depend on CUE:\n%s", len(cue), strings.Join(importers, "\n"))
			}
		})
	}
}

// goTool is the go command of the toolchain running the test.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); runtime.GOROOT() != "" {
		return p
	}
	return "go"
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

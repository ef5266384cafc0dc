package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of
// failing the real test.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recorder) Fatal(args ...any) { r.failed = append(r.failed, fmt.Sprint(args...)) }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, got string
		want            string // "" = passes; else a part of the failure
	}{
		{name: "equal", path: path, got: "a\nb\n"},
		{name: "differs", path: path, got: "a\nc\n", want: "output differs from " + path},
		{name: "missing file", path: filepath.Join(dir, "none.golden"), got: "x", want: "run go test -update to create it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, tc.path, []byte(tc.got))
			got := strings.Join(r.failed, "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("got failure %q, want none", got)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("got %q, want a failure containing %q", got, tc.want)
			}
		})
	}
}

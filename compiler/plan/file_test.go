package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSavePath: --out is refused before a long observation when
// its directory is missing or a file, or when it names a directory.
func TestCheckSavePath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "plan.json"), ""},
		{filepath.Join(dir, "no", "plan.json"), "does not exist or cannot be read"},
		{filepath.Join(file, "plan.json"), file + " is not a directory"},
		{dir, "is a directory; name a file, e.g. " + filepath.Join(dir, "plan.json")},
	} {
		err := CheckSavePath(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckSavePath(%s) = %v, want nil", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckSavePath(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestProblemsError: a plan with problems is an error that counts them
// and says where they were shown; one without is not.
func TestProblemsError(t *testing.T) {
	p := New()
	if err := p.ProblemsError(false); err != nil {
		t.Errorf("no problems: %v, want nil", err)
	}
	p.Problems = []Note{{Step: "dns/a.", Text: "x"}, {Step: "dns/b.", Text: "y"}}
	for json, where := range map[bool]string{false: `(see "Problems" above)`, true: `(see "problems" in the plan)`} {
		err := p.ProblemsError(json)
		if err == nil || !strings.HasPrefix(err.Error(), "2 problems: ") || !strings.Contains(err.Error(), where) {
			t.Errorf("json %v: %v, want 2 problems %s", json, err, where)
		}
	}
}

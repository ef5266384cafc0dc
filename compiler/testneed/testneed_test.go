package testneed

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNeedFailsInCI runs a test that needs a missing tool in a child
// process, with and without CI=true: skipped outside CI, failed in it,
// each time naming the tool and how to install it.
func TestNeedFailsInCI(t *testing.T) {
	if os.Getenv("TESTNEED_CHILD") == "1" {
		Tool(t, "no-such-tool-here", "apt-get install no-such-tool")
		t.Fatal("Tool returned for a missing command")
	}
	for _, tc := range []struct {
		ci       string
		fails    bool
		wantWord string
	}{
		{"", false, "--- SKIP"},
		{"true", true, "--- FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNeedFailsInCI$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "TESTNEED_CHILD=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fails || !strings.Contains(string(out), tc.wantWord) || !strings.Contains(string(out), "apt-get install no-such-tool") {
			t.Errorf("CI=%q: err %v, want failure %v and %q naming the install:\n%s", tc.ci, err, tc.fails, tc.wantWord, out)
		}
	}
}

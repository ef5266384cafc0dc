//go:build cgo && libvirt_dlopen

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
)

// TestDiskAndSeedChangesSayWhatTheyDo: a disk added to a running VM is
// attached at its next boot (site does not hot-plug), and changed
// user-data makes a seed with a new instance-id, on which cloud-init
// runs its first-boot modules again (users, SSH keys, runcmd): the
// plan's reasons say both, since neither is what a user expects from
// "update" (libvirt_nextboot.golden).
func TestDiskAndSeedChangesSayWhatTheyDo(t *testing.T) {
	_, spec := labSession(t, "64MiB")
	site := specRunner(t, spec)
	site(exitOK, "apply")

	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), `disks: [{pool: "default", name: "tiny-data", size: "16MiB"}]`,
		`disks: [{pool: "default", name: "tiny-data", size: "16MiB"}, {pool: "default", name: "tiny-logs", size: "1MiB"}]`, 1)
	changed = strings.Replace(changed, "hostname: tiny", "hostname: tiny\n\t\t\truncmd: [\"touch /ran\"]", 1)
	if changed == string(src) || strings.Count(changed, "tiny-logs")+strings.Count(changed, "runcmd") != 2 {
		t.Fatalf("labSpec changed shape; the test edits it:\n%s", src)
	}
	if err := os.WriteFile(spec, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out := site(exitChanges, "diff", "--detailed-exitcode")
	golden.Check(t, filepath.Join(pkgDir, "testdata", "libvirt_nextboot.golden"), []byte(out))
	for _, want := range []string{
		"a disk added to an existing domain is attached at its next boot",
		"new instance-id",
		"runs its first-boot modules again",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
}

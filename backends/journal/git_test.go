package journal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/testneed"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.test", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestJournalCommitReadsTheRepositoryAsData: an entry names the commit checked
// out where site.cue is, read from the repository's files (git is never
// run in a checkout a pull request writes): a branch, a packed ref, a
// detached HEAD and a linked worktree give the commit; a HEAD that is
// a link, huge, or names a ref outside refs/ gives none.
func TestJournalCommitReadsTheRepositoryAsData(t *testing.T) {
	testneed.Tool(t, "git", "apt-get install git")
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "site.cue"), []byte("package site\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "site.cue")
	git(t, repo, "commit", "-qm", "one")
	head := git(t, repo, "rev-parse", "HEAD")
	sub := filepath.Join(repo, "tenants")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Commit(sub); got != head {
		t.Errorf("Commit on a branch: %q, want %q", got, head)
	}
	git(t, repo, "pack-refs", "--all")
	if got := Commit(repo); got != head {
		t.Errorf("Commit of a packed ref: %q, want %q", got, head)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, repo, "worktree", "add", "-q", "-b", "other", wt)
	if got := Commit(wt); got != head {
		t.Errorf("Commit in a linked worktree: %q, want %q", got, head)
	}
	git(t, repo, "checkout", "-q", "--detach")
	if got := Commit(repo); got != head {
		t.Errorf("Commit detached: %q, want %q", got, head)
	}
	if got := Commit(t.TempDir()); got != "" {
		t.Errorf("Commit outside a repository: %q, want none", got)
	}
	headFile := filepath.Join(repo, ".git", "HEAD")
	for name, plant := range map[string]func() error{
		"HEAD a link to /dev/zero": func() error { os.Remove(headFile); return os.Symlink("/dev/zero", headFile) },
		"HEAD huge":                func() error { return os.WriteFile(headFile, make([]byte, maxGitFile+1), 0o644) },
		"ref outside refs/":        func() error { return os.WriteFile(headFile, []byte("ref: ../../../etc/passwd\n"), 0o644) },
		"ref climbing out":         func() error { return os.WriteFile(headFile, []byte("ref: refs/../../x\n"), 0o644) },
		"not a hash":               func() error { return os.WriteFile(headFile, []byte("::error::x\n"), 0o644) },
	} {
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		if got := Commit(repo); got != "" {
			t.Errorf("%s: Commit %q, want none", name, got)
		}
	}
}

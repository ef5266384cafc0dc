package journal

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/site-tools/site/compiler/hostilefile"
)

// The commit an entry names is read from the repository's files as
// data: git is never run there. A checkout is what a pull request
// writes, and git reads its configuration (core.fsmonitor, hooks) from
// the repository itself; a file read here is opened without following a
// final symbolic link, only when regular, up to a bound, and what it
// says is used only when it has the form of a ref or a hash.

var (
	hashForm = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	refForm  = regexp.MustCompile(`^refs/[A-Za-z0-9._/-]+$`)
)

// maxGitFile bounds a HEAD, a loose ref or a .git file; maxPackedRefs
// the packed-refs file.
const (
	maxGitFile    = 4096
	maxPackedRefs = 4 << 20
)

// Commit is the commit checked out in the git repository at or above
// dir, "" when there is none or it cannot be told.
func Commit(dir string) string {
	if dir == "" {
		return ""
	}
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return ""
	}
	head, err := readSmall(filepath.Join(gitDir, "HEAD"), maxGitFile)
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(head))
	if hashForm.MatchString(h) {
		return h // detached
	}
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok || !refForm.MatchString(ref) || strings.Contains(ref, "..") {
		return ""
	}
	// A linked worktree keeps its HEAD; the refs are in the common dir.
	common := gitDir
	if c, err := readSmall(filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
		p := strings.TrimSpace(string(c))
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitDir, p)
		}
		common = p
	}
	for _, d := range []string{gitDir, common} {
		if b, err := readSmall(filepath.Join(d, filepath.FromSlash(ref)), maxGitFile); err == nil {
			if h := strings.TrimSpace(string(b)); hashForm.MatchString(h) {
				return h
			}
		}
	}
	return packedRef(filepath.Join(common, "packed-refs"), ref)
}

// findGitDir is the git directory of the repository at or above dir:
// a .git directory, or the one a .git file names (a linked worktree).
func findGitDir(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			b, err := readSmall(p, maxGitFile)
			if err != nil {
				return ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
			if !ok {
				return ""
			}
			if !filepath.IsAbs(g) {
				g = filepath.Join(dir, g)
			}
			return g
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// packedRef is ref's hash in a packed-refs file, "" when absent.
func packedRef(path, ref string) string {
	b, err := readSmall(path, maxPackedRefs)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && hashForm.MatchString(hash) {
			return hash
		}
	}
	return ""
}

// readSmall reads the file at path, at most limit bytes, as
// hostilefile.Read does; its errors name the path.
func readSmall(path string, limit int64) ([]byte, error) {
	b, err := hostilefile.Read(path, limit)
	if hostilefile.Refused(err) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, err
}

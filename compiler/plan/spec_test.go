package plan

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestSpecCheckFiles: a saved plan's spec hashes name every file that
// changed, went away or is newly named, and pass when none did.
func TestSpecCheckFiles(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue"), filepath.Join(dir, "c.cue")
	write := func(name, src string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func()
		files []string // what the paths name now
		want  SpecChangedError
	}{
		{"unchanged", func() {}, []string{a, b}, SpecChangedError{}},
		{"rewritten with the same content", func() { write(a, "package tenants\n") }, []string{a, b}, SpecChangedError{}},
		{"one edited", func() { write(b, "package tenants // edited\n") }, []string{a, b}, SpecChangedError{Changed: []string{b}}},
		{"one gone, one new", func() { write(c, "package tenants\n") }, []string{a, c}, SpecChangedError{Removed: []string{b}, Added: []string{c}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(a, "package tenants\n")
			write(b, "package tenants\n")
			s, err := HashSpec([]string{dir}, []string{a, b})
			if err != nil {
				t.Fatal(err)
			}
			tc.edit()
			err = s.CheckFiles(tc.files)
			var got SpecChangedError
			if e := (*SpecChangedError)(nil); errors.As(err, &e) {
				got = *e
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Changed, tc.want.Changed) || !slices.Equal(got.Removed, tc.want.Removed) || !slices.Equal(got.Added, tc.want.Added) {
				t.Errorf("got %+v, want %+v (%v)", got, tc.want, err)
			}
		})
	}
}

// TestSpecChangedErrorOneLine: the names of a saved plan's files are
// the tenants' to choose (a directory under tenants/ whose name holds
// a newline), and site apply --plan printed them as they were, so a
// stale plan's error put a line of the pull request's choosing in the
// log of the job that applies (a workflow command there). Each name
// is quoted as Go quotes it when it holds anything but printable
// characters.
func TestSpecChangedErrorOneLine(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.cue")
	hostile := filepath.Join(dir, "x\n::error::forged\x1b[2J\u202e", "a.cue")
	e := &SpecChangedError{Changed: []string{plain}, Added: []string{hostile}}
	got := e.Error()
	for _, r := range got {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("the error holds %U: %q", r, got)
		}
	}
	for _, want := range []string{plain + " changed", strconv.Quote(hostile) + " is new"} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want it to hold %q", got, want)
		}
	}
}

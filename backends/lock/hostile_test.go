package lock

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPlantedLockTouchesNothingOutside is issue 27's finding 1: an
// expired lock file whose id was "../../../site.cue", beside an empty
// directory named like the takeover's aside file, made the takeover
// rename the lock over the operator's site.cue and remove it. An id is
// an opaque token now, and nothing is named after it.
func TestPlantedLockTouchesNothingOutside(t *testing.T) {
	root := t.TempDir()
	site := filepath.Join(root, "site.cue")
	const operator = "package site\n"
	if err := os.WriteFile(site, []byte(operator), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "locks")
	if err := os.MkdirAll(filepath.Join(dir, "office1.lock.expired-.."), 0o755); err != nil {
		t.Fatal(err)
	}
	f := File{Path: filepath.Join(dir, "office1.lock"), Now: fixedNow}
	planted, _ := json.Marshal(Holder{ID: "../../../site.cue", Host: "evil", Expires: t0.Add(-time.Hour)})
	if err := os.WriteFile(f.Path, planted, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(context.Background(), []Store{f}, holder("B"), Options{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), "is not a site lock (its id is not one site makes)") {
		t.Errorf("Acquire over a planted lock: %v, want \"not a site lock\"", err)
	}
	if b, err := os.ReadFile(site); err != nil || string(b) != operator {
		t.Errorf("site.cue after the takeover: %q, %v; want it untouched", b, err)
	}
	if b, err := os.ReadFile(f.Path); err != nil || string(b) != string(planted) {
		t.Errorf("the planted file after the takeover: %q, %v; want it left for the operator", b, err)
	}
}

// TestLockFileIsReadBounded is issue 27's finding 2: a lock file that
// is a symbolic link to /dev/zero was read without bound (23 GB), and
// one to a runner's file printed its first byte in the error. Whatever
// is at the path is opened without following a link, must be a regular
// file, and is read up to 4 KiB; no error quotes its bytes.
func TestLockFileIsReadBounded(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("Hunter2 is the password"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(path string) error
		want  string
	}{
		{"symbolic link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "(a symbolic link)"},
		{"symbolic link to a runner's file", func(p string) error { return os.Symlink(secret, p) }, "(a symbolic link)"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "(not a regular file)"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "(not a regular file)"},
		{"huge file", func(p string) error {
			return os.WriteFile(p, []byte(`{"id":"`+strings.Repeat("A", 1<<20)+`"}`), 0o644)
		}, "(larger than 4096 bytes)"},
		{"a runner's file's bytes", func(p string) error { return os.WriteFile(p, []byte("Hunter2 is the password"), 0o644) }, "(not the JSON of a holder)"},
		{"forged id", func(p string) error { return os.WriteFile(p, []byte(`{"id":"H\n::error::x"}`), 0o644) }, "(its id is not one site makes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Path: filepath.Join(t.TempDir(), "office1.lock"), Now: fixedNow}
			if err := tt.plant(f.Path); err != nil {
				t.Fatal(err)
			}
			for what, err := range map[string]error{
				"Holders": func() error { _, err := f.Holders(context.Background()); return err }(),
				"Acquire": func() error {
					_, err := Acquire(context.Background(), []Store{f}, holder("B"), Options{Now: fixedNow})
					return err
				}(),
			} {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: %v, want an error saying %q", what, err, tt.want)
				} else if strings.Contains(err.Error(), "Hunter2") || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "'H'") {
					t.Errorf("%s: the error quotes the file: %v", what, err)
				}
			}
			if _, err := os.Stat(secret); err != nil {
				t.Errorf("the link's target: %v", err)
			}
		})
	}
}

// TestHolderIsShownOnOneLine is issue 27's finding 3 at its source: a
// holder's host and command are what a store says, and a newline in
// them started a line the log of a pull-request check runs as a
// workflow command.
func TestHolderIsShownOnOneLine(t *testing.T) {
	h := Holder{ID: tok("A"), Host: "h\n::error::forged", Command: "site apply\r\n::add-mask::x \"q\"", Expires: t0}
	for _, s := range []string{h.String(), Busy("office1", h, "file x"), (&HeldError{Tenant: "office1", Holder: h, Where: "file x"}).Error()} {
		if strings.ContainsAny(s, "\r\n") {
			t.Errorf("holder shown on more than one line: %q", s)
		}
		if !strings.Contains(s, `host h\n::error::forged`) || !strings.Contains(s, `command "site apply\r\n::add-mask::x \"q\""`) {
			t.Errorf("holder not shown escaped: %s", s)
		}
	}
}

func TestDirFile(t *testing.T) {
	repo := t.TempDir()
	tenants := filepath.Join(repo, "tenants")
	if err := os.Mkdir(tenants, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(tenants, link); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	tests := []struct {
		dir, tenant, want string
	}{
		{filepath.Join(outside, "locks"), "office1", ""},
		{"locks", "office1", "is not an absolute path"},
		{tenants, "office1", "is inside " + repo},
		{filepath.Join(repo, ".locks"), "office1", "is inside " + repo},
		{filepath.Join(link, "locks"), "office1", "is inside " + repo},
		{filepath.Join(outside, "locks"), "../x", "cannot name a lock file"},
	}
	for _, tt := range tests {
		f, err := DirFile(tt.dir, tt.tenant, []string{repo, tenants})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("DirFile(%s, %s): %v", tt.dir, tt.tenant, err)
		case tt.want == "" && f.Path != filepath.Join(tt.dir, tt.tenant+".lock"):
			t.Errorf("DirFile(%s, %s) = %s", tt.dir, tt.tenant, f.Path)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("DirFile(%s, %s): %v, want an error saying %q", tt.dir, tt.tenant, err, tt.want)
		}
	}
	if fi, err := os.Stat(filepath.Join(outside, "locks")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the lock directory: %v %v, want it made with mode 0700", fi, err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	t.Setenv("HOME", "/home/op")
	if d, err := DefaultDir(); err != nil || d != "/state/site/locks" {
		t.Errorf("with XDG_STATE_HOME: %s %v", d, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // the specification ignores it
	if d, err := DefaultDir(); err != nil || d != "/home/op/.local/state/site/locks" {
		t.Errorf("without XDG_STATE_HOME: %s %v", d, err)
	}
}

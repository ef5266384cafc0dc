package hostilefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRead: only a regular file within the bound is read; a link (to
// /dev/zero, to a secret), a FIFO, a directory and a larger file are
// refused without reading them.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("Hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		plant func(string) error
		want  error
		read  string
	}{
		{"regular", func(p string) error { return os.WriteFile(p, []byte("ok"), 0o600) }, nil, "ok"},
		{"at the bound", func(p string) error { return os.WriteFile(p, make([]byte, 8), 0o600) }, nil, string(make([]byte, 8))},
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, ErrLink, ""},
		{"link to a secret", func(p string) error { return os.Symlink(secret, p) }, ErrLink, ""},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, ErrNotRegular, ""},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, ErrNotRegular, ""},
		{"too large", func(p string) error { return os.WriteFile(p, make([]byte, 9), 0o600) }, &TooLargeError{Limit: 8}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := tc.plant(p); err != nil {
				t.Fatal(err)
			}
			b, err := Read(p, 8)
			if tc.want == nil {
				if err != nil || string(b) != tc.read {
					t.Fatalf("Read = %q, %v; want %q", b, err, tc.read)
				}
				return
			}
			if err == nil || err.Error() != tc.want.Error() || !Refused(err) {
				t.Fatalf("Read = %q, %v; want refused: %v", b, err, tc.want)
			}
		})
	}
	if _, err := Read(filepath.Join(dir, "absent"), 8); !errors.Is(err, os.ErrNotExist) || Refused(err) {
		t.Errorf("absent file: %v, want not exist, not refused", err)
	}
}

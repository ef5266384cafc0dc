package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestIsTerminal: only a terminal counts. /dev/null is a character
// device too, and it is the stdin of a systemd service or a cron job:
// taking it for a terminal made apply ask "Type yes:" there, and fail.
func TestIsTerminal(t *testing.T) {
	open := func(name string, flag int) func(t *testing.T) any {
		return func(t *testing.T) any {
			f, err := os.OpenFile(name, flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return f
		}
	}
	for _, tc := range []struct {
		name string
		w    func(t *testing.T) any
		want bool
	}{
		{"buffer", func(*testing.T) any { return &bytes.Buffer{} }, false},
		{"/dev/null", open(os.DevNull, os.O_RDWR), false},
		{"regular file", func(t *testing.T) any { return open(filepath.Join(t.TempDir(), "f"), os.O_RDWR|os.O_CREATE)(t) }, false},
		{"pipe", func(t *testing.T) any {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			return r
		}, false},
		// The master side of a new pseudo-terminal answers terminal
		// requests as a terminal does.
		{"pseudo-terminal", open("/dev/ptmx", os.O_RDWR), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isTerminal(tc.w(t)); got != tc.want {
				t.Errorf("isTerminal = %v, want %v", got, tc.want)
			}
		})
	}
}

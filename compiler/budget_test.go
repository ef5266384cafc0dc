package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBudgets sets budgets the heap and the clock have passed before
// Load starts, so the message is checked, not the time it takes.
func TestBudgets(t *testing.T) {
	// sjc.cue alone beside the operator's file: beside its neighbours,
	// whichever file evaluates first would carry the diagnostic.
	dir := t.TempDir()
	for name, from := range map[string]string{ConfigName: "../" + ConfigName, "sjc.cue": "../tenants/sjc.cue"} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "sjc.cue")
	for _, tc := range []struct {
		name string
		o    Options
		want string // "" for a valid load
	}{
		{"defaults", Options{}, ""},
		{"time", Options{EvalTimeout: time.Nanosecond}, "evaluation passed its time budget of 1ns while evaluating this file; " +
			"make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, raise it with --eval-timeout"},
		{"memory", Options{EvalMemory: 1 << 10}, "evaluation passed its memory budget of 1KiB of heap while evaluating this file; " +
			"make the spec simpler (a comprehension or reference that multiplies values?) or, if it is legitimately this large, raise it with --eval-memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadWith(filepath.Join(dir, ConfigName), []string{file}, tc.o)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			var diags Diagnostics
			if !errors.As(err, &diags) || len(diags) != 1 {
				t.Fatalf("got %v, want one diagnostic", err)
			}
			if got, want := diags[0].Format(nil), file+":1:1: "+tc.want; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{1 << 30, "1GiB"}, {512 << 20, "512MiB"}, {1536 << 20, "1536MiB"}, {3 << 40, "3TiB"}, {1000, "1000 bytes"},
	} {
		if got := FormatSize(tc.n); got != tc.want {
			t.Errorf("FormatSize(%d): got %q, want %q", tc.n, got, tc.want)
		}
		if strings.HasSuffix(tc.want, "B") && !strings.HasSuffix(tc.want, "bytes") {
			if back, err := ParseSize(tc.want); err != nil || back != tc.n {
				t.Errorf("ParseSize(%q): got %d, %v, want %d", tc.want, back, err, tc.n)
			}
		}
	}
}

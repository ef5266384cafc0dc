package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCompleteProviders: --provider completes with site.cue's
// providers and their kinds; with no site.cue, with nothing.
func TestCompleteProviders(t *testing.T) {
	config := filepath.Join(t.TempDir(), "site.cue")
	if got := CompleteProviders(config, ""); got != nil {
		t.Errorf("no site.cue: %q", got)
	}
	if err := os.WriteFile(config, []byte(fuzzSite), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"cf\tcloudflare", "pdns\tpowerdns"}},
		{"p", []string{"pdns\tpowerdns"}},
		{"x", nil},
	} {
		if got := CompleteProviders(config, tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("CompleteProviders(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
	}
}

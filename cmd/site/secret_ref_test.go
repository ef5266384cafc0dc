package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingSecretNamesItsReference: a reference in site.cue to a
// secret path or key the store does not hold is a mistake in site.cue,
// so the message names where site.cue writes it (file:line:col of its
// vault: {...}), not just "the spec".
func TestMissingSecretNamesItsReference(t *testing.T) {
	for _, tc := range []struct {
		name, path, key string
		want            string
	}{
		{"misspelt path", "dns/cloudfare", "token", "secret dns/cloudfare#token in mount secret does not exist at "},
		{"misspelt key", "dns/cloudflare", "tokn", `secret dns/cloudflare#tokn in mount secret at `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := newColdStart(t, "sjc.example.net")
			site := strings.Replace(sjcSite([]string{cs.vault.URL}, cs.cf.URL),
				`{vault: "bao", path: "dns/cloudflare", key: "token"}`,
				fmt.Sprintf(`{vault: "bao", path: %q, key: %q}`, tc.path, tc.key), 1)
			dir := writeSpecs(t, site, map[string]string{"sjc.cue": sjcLike()})
			file := filepath.Join(dir, "sjc.cue")
			// Where site.cue writes the reference: its "vault:" label.
			src, err := os.ReadFile(filepath.Join(dir, "site.cue"))
			if err != nil {
				t.Fatal(err)
			}
			var at string
			for i, line := range strings.Split(string(src), "\n") {
				if c := strings.Index(line, "{vault: {vault: "); c >= 0 {
					at = fmt.Sprintf("%s:%d:%d", filepath.Join(dir, "site.cue"), i+1, c+2)
				}
			}
			if at == "" {
				t.Fatalf("no vault reference in site.cue:\n%s", src)
			}
			code, out, errOut := cs.site(t, "diff", file)
			if code != exitError {
				t.Fatalf("diff: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("stdout does not say %q:\n%s", tc.want, out)
			}
			if want := "fix the reference at " + at; !strings.Contains(out, want) {
				t.Errorf("stdout does not name the reference in site.cue (%q):\n%s", want, out)
			}
		})
	}
}

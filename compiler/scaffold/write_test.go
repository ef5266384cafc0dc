package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite: where init's output goes and what it says next, for a new
// project, a tenant already granted, --config (the lines added) and
// neither (the lines printed, the grant first), and --out -.
func TestWrite(t *testing.T) {
	command := func(sub string, args ...string) string {
		return strings.Join(append([]string{"site", sub}, args...), " ")
	}
	g := Result{Tenant: []byte("tenant\n"), Site: []byte("grant\n"), Kind: PowerDNS}
	for _, tc := range []struct {
		name     string
		exists   bool
		granted  bool
		toConfig bool
		stdout   bool
		want     []string
		site     string
	}{
		{name: "new project", want: []string{"wrote SITE and OUT.\n", "placeholder, a PowerDNS", "Next:\n  site vet OUT\n  site diff\n  site apply\n"}, site: "grant\n"},
		{name: "granted", exists: true, granted: true, want: []string{"wrote OUT; SITE grants tenant acme already"}, site: "old\n"},
		{name: "config", exists: true, toConfig: true, want: []string{"wrote OUT and added tenant acme to SITE"}, site: "old\n\ngrant\n"},
		{name: "printed", exists: true, want: []string{"so first the operator adds this to SITE", "\n\ngrant\n\nthen check it with: site vet OUT\n"}, site: "old\n"},
		{name: "stdout", exists: true, stdout: true, want: []string{"tenant\n"}, site: "old\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			op := Operator{Path: filepath.Join(dir, "site.cue"), Exists: tc.exists}
			if tc.exists {
				if err := os.WriteFile(op.Path, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			w := Writing{Stdout: &stdout, Stderr: &stderr, Out: filepath.Join(dir, "acme.cue"), ToConfig: tc.toConfig, Command: command}
			if tc.stdout {
				w.Out = "-"
			}
			r := g
			r.Granted = tc.granted
			if err := w.Write(op, r, Options{Name: "acme", Provider: "pdns"}); err != nil {
				t.Fatal(err)
			}
			got := strings.NewReplacer(op.Path, "SITE", w.Out, "OUT").Replace(stdout.String())
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Errorf("stdout lacks %q:\n%s", want, got)
				}
			}
			if site, _ := os.ReadFile(op.Path); string(site) != tc.site {
				t.Errorf("site.cue holds %q, want %q", site, tc.site)
			}
			if tenant, err := os.ReadFile(filepath.Join(dir, "acme.cue")); tc.stdout != (err != nil) || (!tc.stdout && string(tenant) != "tenant\n") {
				t.Errorf("tenant file %q, %v (stdout %v)", tenant, err, tc.stdout)
			}
			if tc.stdout && stderr.String() != "grant\n" {
				t.Errorf("stderr %q, want the operator's lines", stderr.String())
			}
		})
	}
}

package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyntaxErrorFirstOnly: a file that does not parse is reported by its
// first syntax error alone. What CUE's parser reports after the first is
// mostly the same mistake seen again: one missing ] gave "missing ',' in
// list literal" on every line down to the end of the struct, then
// "expected operand, found '}'", none of them on the line it was missing
// from. Every file with an error still gets its own line.
func TestSyntaxErrorFirstOnly(t *testing.T) {
	// a.cue's MX list lacks its ]: the parser reads on to the end of
	// the struct, erring on every line.
	const missingBracket = `package tenants

tenants: a: {
	domain: "a.example.test"
	dns: zones: "a.example.test": {
		provider: "pdns"
		records: "@": {
			MX: [
				{priority: 10, host: "mx1.a.example.test."},
				{priority: 20, host: "mx2.a.example.test."},
			TXT: ["v=spf1 mx -all"]
			CAA: [{flags: 0, tag: "issue", value: "letsencrypt.org"}]
		}
		records: www: A: ["192.0.2.1"]
	}
	vms: web: {
		host: "kvm1"
		autostart: true
		vcpus: 1
		memory: "1GiB"
		disks: [{pool: "default", name: "web", size: "1GiB"}]
	}
}
`
	const missingBrace = `package tenants

tenants: b: {domain: "b.example.test"
`
	const valid = `package tenants

tenants: b: domain: "b.example.test"
`
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name:  "a missing ] is one error, not a cascade",
			files: map[string]string{"site.cue": hostileSite, "a.cue": missingBracket, "b.cue": valid},
			want:  "a.cue:11:7: missing ',' in list literal",
		},
		{
			name:  "one error per file that does not parse",
			files: map[string]string{"site.cue": hostileSite, "a.cue": missingBracket, "b.cue": missingBrace},
			want:  "a.cue:11:7: missing ',' in list literal\nb.cue:3:39: expected '}', found 'EOF'",
		},
		{
			name:  "a file with one error keeps it",
			files: map[string]string{"site.cue": hostileSite, "b.cue": missingBrace},
			want:  "b.cue:3:39: expected '}', found 'EOF'",
		},
		{
			name: "the operator's file too",
			files: map[string]string{
				"site.cue": strings.Replace(hostileSite, `providers: ["pdns"], hosts: ["kvm1"]}
	b:`, `providers: ["pdns", hosts: ["kvm1"]}
	b:`, 1),
				"b.cue": valid,
			},
			want: "site.cue:6:60: missing ',' in list literal",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(filepath.Join(dir, "site.cue"), []string{dir + "/..."})
			var diags Diagnostics
			if !errors.As(err, &diags) {
				t.Fatalf("Load returned %v, want diagnostics", err)
			}
			got := strings.ReplaceAll(diags.Error(), dir+string(filepath.Separator), "")
			if got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

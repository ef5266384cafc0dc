package compiler

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// exampleTree copies the example tenants and site.cue into a temporary
// directory laid out like the repository (site.cue, tenants/*.cue),
// without the tenant files in drop, and writes files (a path below the
// copy and its content) into it.
func exampleTree(t *testing.T, drop []string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("../site.cue", filepath.Join(dir, "site.cue"))
	examples, err := filepath.Glob("../tenants/*.cue")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example tenants: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range examples {
		if !strings.Contains(strings.Join(drop, "\x00")+"\x00", filepath.Base(f)+"\x00") {
			copyFile(f, filepath.Join(dir, "tenants", filepath.Base(f)))
		}
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// declaredAt returns where the example file tenants/FILE declares
// tenant name, as file:line:col (the column of the name).
func declaredAt(t *testing.T, file, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("../tenants", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	prefix := "tenants: " + name + ":"
	for line := 1; s.Scan(); line++ {
		if strings.HasPrefix(s.Text(), prefix) {
			return fmt.Sprintf("tenants/%s:%d:%d", file, line, len("tenants: ")+1)
		}
	}
	t.Fatalf("tenants/%s does not declare tenant %s", file, name)
	return ""
}

// fragment is a tenant file that adds one record to office1's zone and
// nothing else: what a user writes to split a tenant over two files.
const fragment = `package tenants

tenants: office1: dns: zones: "office1.example.test": records: extra: A: ["192.0.2.99"]
`

// TestTenantInOneFile: a tenant spread over two files is reported as
// such, whether or not the schema accepts the second file on its own,
// and the errors that exist only because a file is a fragment of a
// tenant declared elsewhere (its required fields, which the other file
// holds) are not reported: following them would send the user the
// wrong way. Every other error of the file stays, after the rule. A
// file's result read back from the cache reports the same as one
// evaluated.
func TestTenantInOneFile(t *testing.T) {
	office1 := declaredAt(t, "office1.cue", "office1")
	twoFiles := func(file, base string) string {
		return "tenants/" + file + ":3:10: tenants.office1: file " + file + " declares tenant office1, which is declared in two files; " +
			"a tenant file declares only the tenant it is named after (" + base + "), so merge these fields into office1.cue (also at " + office1 + ")"
	}
	tests := []struct {
		name  string
		drop  []string          // example files left out
		files map[string]string // files added below the copy
		want  []string
	}{{
		name:  "fragment named for another tenant",
		files: map[string]string{"tenants/office2.cue": fragment},
		want:  []string{twoFiles("office2.cue", "office2")},
	}, {
		name:  "fragment named for no tenant",
		files: map[string]string{"tenants/office1-extra.cue": fragment},
		want:  []string{twoFiles("office1-extra.cue", "office1-extra")},
	}, {
		name: "fragment the schema accepts",
		files: map[string]string{"tenants/office1-extra.cue": `package tenants

tenants: office1: {domain: "office1.example.test", dns: zones: "office1.example.test": {provider: "pdns", records: extra: A: ["192.0.2.99"]}}
`},
		want: []string{twoFiles("office1-extra.cue", "office1-extra")},
	}, {
		name: "fragment with an error of its own",
		files: map[string]string{"tenants/office2.cue": `package tenants

tenants: office1: dns: zones: "office1.example.test": records: extra: {ttl: "long", A: ["192.0.2.99"]}
`},
		want: []string{
			twoFiles("office2.cue", "office2"),
			`tenants/office2.cue:3:77: tenants.office1.dns.zones."office1.example.test".records.extra.ttl: got "long", want a whole number`,
		},
	}, {
		// No other file declares the tenant: the file holds all of it, so
		// what it lacks is lacking still once it is moved, and reported.
		name:  "whole tenant in a misnamed file",
		drop:  []string{"office1.cue"},
		files: map[string]string{"tenants/offce1.cue": fragment},
		want: []string{
			"tenants/offce1.cue:3:10: tenants.office1: file offce1.cue declares tenant office1; a tenant file declares only the tenant it is named after (offce1), so move tenant office1 to office1.cue",
			"tenants/offce1.cue:3:10: tenants.office1.domain: domain is required; add it",
			`tenants/offce1.cue:3:31: tenants.office1.dns.zones."office1.example.test".provider: name the zone's provider, one that site.cue grants this tenant: provider: "NAME"`,
		},
	}, {
		name:  "fragment named after its tenant, in another directory",
		files: map[string]string{"tenants/zz/office1.cue": fragment},
		want: []string{
			"tenants/zz/office1.cue:3:10: tenants.office1: tenant office1 is declared in two files; keep each tenant in one file (also at " + office1 + ")",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exampleTree(t, tt.drop, tt.files)
			cacheDir := t.TempDir()
			cache := OpenCache(cacheDir)
			rel := func(p model.Pos) model.Pos {
				if r, err := filepath.Rel(dir, p.File); err == nil {
					p.File = filepath.ToSlash(r)
				}
				return p
			}
			for _, run := range []struct {
				name  string
				cache *Cache
			}{{"evaluated", nil}, {"cold cache", cache}, {"cached", cache}} {
				if run.name == "cached" && len(entries(t, cacheDir)) == 0 {
					t.Fatal("nothing was cached: the cached run would evaluate again")
				}
				_, err := LoadWith(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "tenants") + "/..."}, Options{Cache: run.cache})
				var diags Diagnostics
				if !errors.As(err, &diags) {
					t.Fatalf("%s: got %v, want Diagnostics", run.name, err)
				}
				var got []string
				for _, d := range diags {
					got = append(got, d.Format(rel))
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("%s:\ngot\n%s\nwant\n%s", run.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
			}
		})
	}
}

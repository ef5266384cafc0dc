package compiler

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/site-tools/site/compiler/model"

	"github.com/site-tools/site/compiler/golden"
)

// loadArchive writes the files of a txtar archive into a temporary
// directory and loads that directory with dir/... and its site.cue. It returns the
// model or the diagnostics, with the temporary directory cut from every
// file name so the output is stable.
func loadArchive(t *testing.T, archive string) (*model.Spec, string) {
	t.Helper()
	dir := extract(t, archive)
	spec, err := Load(filepath.Join(dir, "site.cue"), []string{dir + "/..."})
	if err == nil {
		return spec, ""
	}
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("Load returned %T, want Diagnostics: %v", err, err)
	}
	return nil, strings.ReplaceAll(diags.Error(), dir+string(filepath.Separator), "") + "\n"
}

// extract writes the files of a txtar archive into a new temporary
// directory and returns it.
func extract(t *testing.T, archive string) string {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRules loads every invalid spec in testdata/rules/*.txtar and
// compares the diagnostics with the golden file beside it: one case (or
// more) per validation rule, each positioned in the user's file.
func TestRules(t *testing.T) {
	archives, err := filepath.Glob("testdata/rules/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no cases in testdata/rules: %v", err)
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			spec, got := loadArchive(t, archive)
			if spec != nil {
				t.Fatalf("Load accepted an invalid spec; want diagnostics")
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if !positioned(line) {
					t.Errorf("diagnostic %q does not start with file:line:col", line)
				}
			}
			golden.Check(t, strings.TrimSuffix(archive, ".txtar")+".golden", []byte(got))
		})
	}
}

// positioned reports whether a diagnostic line starts with
// "file.cue:line:col: ".
func positioned(line string) bool {
	file, rest, ok := strings.Cut(line, ".cue:")
	if !ok || file == "" {
		return false
	}
	parts := strings.SplitN(rest, ":", 3)
	return len(parts) == 3 && isIndex(parts[0]) && isIndex(parts[1]) && strings.HasPrefix(parts[2], " ")
}

// TestValid loads every valid spec in testdata/valid/*.txtar and
// compares the model, as JSON, with the golden file beside it: this pins
// decoding, defaults, canonical names and sorted values.
func TestValid(t *testing.T) {
	archives, err := filepath.Glob("testdata/valid/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no cases in testdata/valid: %v", err)
	}
	for _, archive := range archives {
		name := strings.TrimSuffix(filepath.Base(archive), ".txtar")
		t.Run(name, func(t *testing.T) {
			spec, diags := loadArchive(t, archive)
			if spec == nil {
				t.Fatalf("Load rejected a valid spec:\n%s", diags)
			}
			golden.Check(t, strings.TrimSuffix(archive, ".txtar")+".golden", []byte(dumpModel(t, spec)))
		})
	}
}

// dumpModel renders the model as indented JSON with positions reduced
// to the base name of their file.
func dumpModel(t *testing.T, spec *model.Spec) string {
	t.Helper()
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "file" {
					if s, ok := x.(string); ok {
						v[k] = filepath.Base(s)
					}
					continue
				}
				v[k] = strip(x)
			}
		case []any:
			for i := range v {
				v[i] = strip(v[i])
			}
		}
		return v
	}
	b, err = json.MarshalIndent(strip(v), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// TestExampleTenants vets the tenants shipped in the repository, as CI
// does with site vet ./tenants/... .
func TestExampleTenants(t *testing.T) {
	spec, err := Load("../site.cue", []string{"../tenants/..."})
	if err != nil {
		t.Fatalf("the example tenants do not vet:\n%v", err)
	}
	var names []string
	for _, tn := range spec.Tenants {
		names = append(names, tn.Name)
	}
	if got, want := strings.Join(names, ","), "lab,office1,sjc"; got != want {
		t.Errorf("tenants: got %q, want %q", got, want)
	}
}

// TestLoadBeside: the spec held in memory stands for the file at its
// path (whatever that file holds now), and the tenant files beside it
// are loaded too, as Load of that path would load them: a delegation
// of the zone of the tenant beside it is held to that zone's apex NS.
func TestLoadBeside(t *testing.T) {
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	a: {domains: ["example.test"], providers: ["pdns"]}
	b: {delegate: ["b.example.test"], providers: ["pdns"]}
}
`
	const a = `package tenants
tenants: a: {domain: "example.test", dns: zones: "example.test": {provider: "pdns", records: b: NS: ["ns.evil.example."]}}
`
	const b = `package tenants
tenants: b: {domain: "b.example.test", dns: zones: "b.example.test": {provider: "pdns", records: "@": NS: ["ns1.example.net."]}}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "a.cue")
	// What --force would replace: not read.
	if err := os.WriteFile(path, []byte("not CUE {"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := LoadBeside("site.cue", []byte(site), path, []byte(a))
	if err != nil || len(spec.Tenants) != 1 || spec.Tenants[0].Name != "a" {
		t.Fatalf("LoadBeside alone = %v, %v; want tenant a", spec, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.cue"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadBeside("site.cue", []byte(site), path, []byte(a))
	var diags Diagnostics
	if !errors.As(err, &diags) || !strings.Contains(err.Error(), "b.example.test. NS names ns.evil.example., which tenant b's zone b.example.test. does not name at its apex") {
		t.Fatalf("LoadBeside with b.cue beside = %v, want the delegation held to b's apex NS", err)
	}
}

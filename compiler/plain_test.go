package compiler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/parser"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/site-tools/site/compiler/specgen"
)

// TestPlainDecodeMatchesCUE pins the fast path: for every plain-data
// fixture, the tenants read from the syntax tree with the schema's
// defaults filled in equal what CUE's Decode returns.
func TestPlainDecodeMatchesCUE(t *testing.T) {
	sources := map[string][]byte{"specgen-10": specgen.Tenant(10, 20), "specgen-3": specgen.Tenant(3, 20)}
	archives, _ := filepath.Glob("testdata/valid/*.txtar")
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			sources[filepath.Base(a)+"/"+f.Name] = f.Data
		}
	}
	examples, _ := filepath.Glob("../tenants/*.cue")
	for _, p := range examples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources[p] = b
	}
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	plain := 0
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			f, err := parser.ParseFile(name, src)
			if err != nil {
				t.Fatal(err)
			}
			if f.PackageName() == "site" {
				t.Skip("the operator's file: not a tenant file")
			}
			fast, ok := plainTenants(f)
			if !ok {
				t.Skip("not plain data: CUE decodes it")
			}
			plain++
			v := e.schema.Unify(e.ctx.BuildFile(f, cue.Scope(e.schema)))
			if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
				t.Fatal(err)
			}
			var slow map[string]*rawTenant
			if err := v.LookupPath(tenantsPath).Decode(&slow); err != nil {
				t.Fatal(err)
			}
			for _, m := range []map[string]*rawTenant{fast, slow} {
				for _, tn := range m {
					fillDefaults(tn)
				}
			}
			got, _ := json.MarshalIndent(fast, "", " ")
			want, _ := json.MarshalIndent(slow, "", " ")
			if string(got) != string(want) {
				t.Errorf("plain decode differs from CUE's Decode\ngot:  %s\nwant: %s", got, want)
			}
		})
	}
	if plain < 4 {
		t.Errorf("only %d fixtures took the plain path; the test proves little", plain)
	}
}

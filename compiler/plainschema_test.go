package compiler

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/parser"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/site-tools/site/compiler/specgen"
)

// verdict is what the schema's mirror and CUE each say of one file.
type verdict struct {
	plain  bool                  // plain data: the mirror was asked
	mirror bool                  // the mirror accepted it
	fast   map[string]*rawTenant // decoded from the syntax tree
	// decoded says fast is there: the plain values fit the raw types.
	decoded bool
	errs    []cueError            // CUE's errors
	slow    map[string]*rawTenant // CUE's Decode of the tenants it accepts
}

// judge parses src as evaluator.source does and, when it is a plain
// tenant file that reaches CUE there, asks both the mirror and CUE.
// ok is false when source would stop before either is asked.
func judge(t testing.TB, e *evaluator, name string, src []byte) (v verdict, ok bool) {
	t.Helper()
	if checkTokens(name, src) != nil {
		return v, false
	}
	f, err := parser.ParseFile(name, src)
	if err != nil || f.PackageName() != "tenants" || checkDepth(name, f) != nil ||
		len(legacyFields(indexPositions(name, f))) > 0 || len(tenantsTop.check(name, f)) > 0 {
		return v, false
	}
	top, plain := plainData(f)
	if !plain {
		return v, false
	}
	// The mirror is asked first, as evaluator.tree asks it; a value of
	// the wrong type does not decode, and must be refused all the same.
	v.plain, v.mirror = true, plainAccepts(top)
	v.fast, v.decoded = decodePlain(top)
	// The verdict is check's, as source would have asked it; the decode
	// is of the whole file (check leaves big records out of its values).
	_, v.errs = e.check(f, true)
	if len(v.errs) == 0 {
		whole := e.schema.Unify(e.ctx.BuildFile(f, cue.Scope(e.schema)))
		if err := whole.LookupPath(tenantsPath).Decode(&v.slow); err != nil {
			v.errs = cueErrors(err, nil)
		}
	}
	for _, m := range []map[string]*rawTenant{v.fast, v.slow} {
		for _, rt := range m {
			fillDefaults(rt)
		}
	}
	return v, true
}

// sound fails t when the mirror accepted what CUE rejects, or decoded
// it otherwise than CUE.
func (v verdict) sound(t testing.TB) {
	t.Helper()
	if !v.mirror {
		return
	}
	if !v.decoded {
		t.Fatal("the mirror accepts plain values that do not decode")
	}
	if len(v.errs) > 0 {
		t.Fatalf("the mirror accepts what CUE rejects: %s: %s", strings.Join(v.errs[0].path, "."), v.errs[0].msg)
	}
	got, _ := json.MarshalIndent(v.fast, "", " ")
	want, _ := json.MarshalIndent(v.slow, "", " ")
	if string(got) != string(want) {
		t.Fatalf("the mirror's decode differs from CUE's\ngot:  %s\nwant: %s", got, want)
	}
}

// corpus is every tenant file the package's tests know: the fixtures
// and rule archives, the hostile corpus but its bombs, the example
// tenants and specgen's output (a zone past recordsChunk among them).
func corpus(t *testing.T) map[string][]byte {
	out := map[string][]byte{
		"specgen-0":    specgen.Tenant(0, 30), // a VM and a network
		"specgen-7":    specgen.Tenant(7, 20),
		"specgen-1500": specgen.Tenant(3, 1500),
	}
	archives, _ := filepath.Glob("testdata/*/*.txtar")
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			out[a+"/"+f.Name] = f.Data
		}
	}
	files, _ := filepath.Glob("testdata/hostile/*.cue")
	examples, _ := filepath.Glob("../tenants/*.cue")
	for _, p := range append(files, examples...) {
		if strings.HasPrefix(filepath.Base(p), "bomb_") {
			continue // runs past any budget: not plain data anyway
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// TestPlainMirrorSoundOnCorpus: on every file of the corpus, what the
// mirror accepts CUE accepts, with the same tenants; and the mirror
// accepts the valid plain files the fast path is for (specgen's and the
// example tenants), so that it is taken at all.
func TestPlainMirrorSoundOnCorpus(t *testing.T) {
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	accepted, rejected := 0, 0
	for name, src := range corpus(t) {
		t.Run(name, func(t *testing.T) {
			v, ok := judge(t, e, name, src)
			if !ok {
				t.Skip("not applicable to this corpus file: site refuses it before CUE runs (size, depth, syntax) or it is not plain data, so neither the mirror nor the fast path sees it; the same file runs through CUE in the load tests")
			}
			v.sound(t)
			if v.mirror {
				accepted++
			} else if len(v.errs) > 0 {
				rejected++
			}
			wanted := strings.HasPrefix(name, "specgen") || strings.HasPrefix(name, "../tenants/")
			if wanted && len(v.errs) == 0 && !v.mirror {
				t.Errorf("CUE accepts this plain file but the mirror refuses it: the fast path is not taken")
			}
		})
	}
	if accepted < 50 || rejected < 5 {
		t.Errorf("the mirror accepted %d and CUE rejected %d plain files; the corpus proves little", accepted, rejected)
	}
}

// TestPlainSchemaRevisited fails when schema/*.cue changes: the mirror
// in plainschema.go must then be checked against it again, or it could
// accept what the new schema refuses.
func TestPlainSchemaRevisited(t *testing.T) {
	sum := schemaSum()
	if got := hex.EncodeToString(sum[:]); got != checkedSchemaSum {
		t.Fatalf("schema/*.cue changed since the Go mirror of it was checked.\n"+
			"Revisit the mirror in compiler/plainschema.go (every field, type, range, regexp,\n"+
			"required field and default of the changed definitions), add a near miss for each\n"+
			"new constraint to TestPlainMirrorNearMisses, run the tests, then set\n"+
			"checkedSchemaSum to %q", got)
	}
}

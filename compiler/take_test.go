package compiler

import (
	"encoding/json"
	"maps"
	"testing"

	"cuelang.org/go/cue/parser"

	"github.com/site-tools/site/compiler/specgen"
)

// TestTakeTreeMatches pins takeTree to the two walks it replaces: on
// every file of the corpus (plainschema_test.go) it indexes the same
// positions as indexPositions, finds plain data only where plainData
// does, and then gives the schema's mirror and the decoder what
// plainData gives them.
func TestTakeTreeMatches(t *testing.T) {
	taken := 0
	sources := corpus(t)
	// A zone written in two places, whole the first time: takeTree has
	// decoded it when the second part comes, finds the file not plain,
	// and hands it to CUE, which merges the two.
	sources["split zone"] = []byte(`package tenants

tenants: t: {domain: "t.example.test", dns: zones: "t.example.test": {provider: "pdns", records: a: A: ["192.0.2.1"]}}
tenants: t: dns: zones: "t.example.test": records: b: A: ["192.0.2.2"]
`)
	for name, src := range sources {
		t.Run(name, func(t *testing.T) {
			f1, err := parser.ParseFile(name, src)
			if err != nil || checkDepth(name, f1) != nil {
				t.Skip("not applicable to this source: it does not parse or is refused by the depth check before takeTree walks it, so there is no walk to compare")
			}
			f2, _ := parser.ParseFile(name, src)
			pos := indexPositions(name, f1)
			top, plain := plainData(f1)
			takenPos, takenTop, takenPlain := takeTree(name, f2)
			if !maps.Equal(pos.at, takenPos.at) {
				t.Fatalf("positions differ:\nindexPositions: %v\ntakeTree:       %v", pos.at, takenPos.at)
			}
			// takeTree may find less plain than plainData (a zone it
			// decoded cannot take a second part), never more: what it
			// does not find plain goes to CUE.
			if takenPlain && !plain || name == "split zone" && takenPlain {
				t.Fatalf("plainData says plain %v, takeTree %v", plain, takenPlain)
			}
			if !takenPlain {
				return
			}
			taken++
			if a, b := plainAccepts(top), plainAccepts(takenTop); a != b {
				t.Fatalf("the mirror accepts plainData's values: %v, takeTree's: %v", a, b)
			}
			want, ok1 := decodePlain(top)
			got, ok2 := decodePlain(takenTop)
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			if ok1 != ok2 || string(w) != string(g) {
				t.Fatalf("decoded differently:\nplainData: %v %s\ntakeTree:  %v %s", ok1, w, ok2, g)
			}
		})
	}
	if taken < 50 {
		t.Errorf("only %d plain files compared; the test proves little", taken)
	}
}

// TestTakeTreeDecodesZonesAsItGoes: a file of many zones keeps no
// zone's plain values past the zone (each is decoded as it is read) and
// no syntax tree at all, which is what lets it load in no more memory
// than the same zones in as many files (BenchmarkLoadZones).
func TestTakeTreeDecodesZonesAsItGoes(t *testing.T) {
	f, err := parser.ParseFile("t.cue", specgen.Zones(0, 20, 5))
	if err != nil {
		t.Fatal(err)
	}
	_, top, ok := takeTree("t.cue", f)
	if !ok || len(f.Decls) != 0 {
		t.Fatalf("plain %v, %d declarations left in the syntax tree", ok, len(f.Decls))
	}
	zones := top["tenants"].(map[string]any)["t0000"].(map[string]any)["dns"].(map[string]any)["zones"].(map[string]any)
	if len(zones) != 20 {
		t.Fatalf("got %d zones, want 20", len(zones))
	}
	for name, z := range zones {
		if _, ok := z.(decodedZone); !ok {
			t.Errorf("zone %s is held as %T, not decoded", name, z)
		}
	}
}

// TestSplitZoneGoesToCUE: the file of TestTakeTreeMatches's split zone
// loads whole, both parts of the zone merged, through CUE.
func TestSplitZoneGoesToCUE(t *testing.T) {
	e, err := newEvaluator(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := e.source("t.cue", []byte(`package tenants

tenants: t: {domain: "t.example.test", dns: zones: "t.example.test": {provider: "pdns", records: a: A: ["192.0.2.1"]}}
tenants: t: dns: zones: "t.example.test": records: b: A: ["192.0.2.2"]
`))
	if len(r.diags) > 0 {
		t.Fatal(r.diags)
	}
	z := r.tenants["t"].DNS.Zones["t.example.test"]
	if z == nil || z.Records["a"] == nil || z.Records["b"] == nil || z.TTL != 300 {
		t.Fatalf("got zone %+v, want records a and b and the default TTL", z)
	}
}

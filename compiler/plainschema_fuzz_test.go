package compiler

import (
	"testing"

	"github.com/site-tools/site/compiler/specgen"
)

// FuzzPlainMirror: for any input, when the file is plain data and the
// schema's mirror accepts it, CUE accepts it too and decodes the same
// tenants. Under go test it runs its seeds (every fixture, the example
// tenants, the hostile corpus but its bombs, specgen's output and
// nearMissBase); go test -fuzz FuzzPlainMirror ./compiler/ searches on.
func FuzzPlainMirror(f *testing.F) {
	seeds(f)
	f.Add([]byte(nearMissBase))
	f.Add(specgen.Tenant(10, 40))
	f.Fuzz(func(t *testing.T, src []byte) {
		// A fresh evaluator per input: a CUE context keeps all it saw.
		e, err := newEvaluator(nil)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := judge(t, e, "fuzz.cue", src); ok {
			v.sound(t)
		}
	})
}

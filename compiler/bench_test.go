package compiler

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/specgen"
)

// BenchmarkLoad loads generated tenants, one file each, as site vet
// does; cmd/sitebench compares the whole command with cue vet.
func BenchmarkLoad(b *testing.B) {
	for _, size := range []struct{ tenants, records int }{{1, 1000}, {1, 50000}, {100, 50}, {1000, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size.tenants, size.records), func(b *testing.B) {
			dir := b.TempDir()
			_, bytes, err := specgen.Write(dir, size.tenants, size.records)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(bytes)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(filepath.Join(dir, "site.cue"), []string{dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

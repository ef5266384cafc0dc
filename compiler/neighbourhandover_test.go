package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeighbourIndexKeepsHandoverChecks: the handover checks read the
// holding zone's records at a single name and the grantee's dns: names,
// which no neighbour index carries; a load of either tenant, the other
// cached as a neighbour, still finds two writers of the name.
func TestNeighbourIndexKeepsHandoverChecks(t *testing.T) {
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	a: {domains: ["hand.test"], providers: ["pdns"]}
	b: {domains: ["b.test"], names: ["www.hand.test"], providers: ["pdns"]}
}
`
	const a = `package tenants
tenants: a: {domain: "hand.test", dns: zones: "hand.test": {provider: "pdns", records: www: A: ["192.0.2.1"]}}
`
	const b = `package tenants
tenants: b: {domain: "b.test", dns: names: "www.hand.test": {provider: "pdns", A: ["192.0.2.80"]}}
`
	for _, scoped := range []string{"a.cue", "b.cue"} {
		t.Run(scoped, func(t *testing.T) {
			dir := t.TempDir()
			for name, src := range map[string]string{"site.cue": site, "a.cue": a, "b.cue": b} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cache := OpenCache(t.TempDir())
			file := filepath.Join(dir, scoped)
			for i := range 3 { // the first load writes the neighbour's cache; the next read it
				if got := loadOne(t, dir, file, cache); !strings.Contains(got, "two writers") {
					t.Fatalf("load %d of %s: no two writers of www.hand.test.:\n%s", i+1, scoped, got)
				}
			}
		})
	}
}

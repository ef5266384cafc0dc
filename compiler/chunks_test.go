package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeZoneInChunks checks a zone big enough to be validated in
// chunks: errors in any chunk are found, with their path and the user's
// position, and a valid large zone loads completely.
func TestLargeZoneInChunks(t *testing.T) {
	const n = 2*recordsChunk + 500
	write := func(t *testing.T, bad map[int]string) string {
		var b strings.Builder
		b.WriteString("package tenants\n\ntenants: big: {\n\tdomain: \"big.example\"\n\tdns: zones: \"big.example\": {\n")
		b.WriteString("\t\tprovider: \"pdns\"\n\t\trecords: {\n")
		for i := range n {
			if rec, ok := bad[i]; ok {
				b.WriteString("\t\t\t" + rec + "\n")
				continue
			}
			fmt.Fprintf(&b, "\t\t\th%d: A: [\"10.0.%d.%d\"]\n", i, i/250, i%250+1)
		}
		b.WriteString("\t\t}\n\t}\n}\n")
		dir := t.TempDir()
		p := filepath.Join(dir, "big.cue")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		site := "package site\nproviders: pdns: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"K\"}\ntenants: big: {domains: [\"big.example\"], providers: [\"pdns\"]}\n"
		if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(site), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("valid", func(t *testing.T) {
		p := write(t, nil)
		spec, err := Load(siteBeside(p), []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(spec.Tenants[0].Zones[0].RRsets); got != n {
			t.Errorf("got %d RRsets, want %d", got, n)
		}
	})
	t.Run("errors in several chunks", func(t *testing.T) {
		p := write(t, map[int]string{
			10:   `h10: MX: [{priority: 70000, host: "mx.example.org."}]`,
			1500: `h1500: {A: ["10.0.0.1"], TTL: 60}`,
		})
		_, err := Load(siteBeside(p), []string{p})
		if err == nil {
			t.Fatal("Load accepted an invalid zone")
		}
		got := strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
		want := strings.Join([]string{
			`big.cue:18:25: tenants.big.dns.zones."big.example".records.h10.MX.0.priority: priority 70000 is out of range; use 0 to 65535`,
			`big.cue:1508:29: tenants.big.dns.zones."big.example".records.h1500.TTL: ttl is written in lower case: ttl`,
		}, "\n")
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("site's checks in a large zone", func(t *testing.T) {
		p := write(t, map[int]string{2400: `h2400: A: ["10.0.0.300"]`, 2401: `H2400: A: ["10.0.0.3"]`})
		_, err := Load(siteBeside(p), []string{p})
		if err == nil {
			t.Fatal("Load accepted an invalid zone")
		}
		got := strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
		want := strings.Join([]string{
			`big.cue:2408:15: tenants.big.dns.zones."big.example".records.h2400.A.0: A record "10.0.0.300" is not an IPv4 address; write it dotted, like 192.0.2.1`,
			`big.cue:2409:4: tenants.big.dns.zones."big.example".records.H2400: "h2400" and "H2400" are two spellings of h2400.big.example.; keep one (INCIDENTS.md 2: the retired spelling deletes what the live one wrote) (also at big.cue:2408:4)`,
		}, "\n")
		if got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
}

// siteBeside is the operator's file written beside tenant file p.
func siteBeside(p string) string { return filepath.Join(filepath.Dir(p), "site.cue") }

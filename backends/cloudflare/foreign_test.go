package cloudflare

import (
	"strings"
	"testing"
	"unicode"

	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// TestForeignCommentsClaimNoTenant writes record comments as another
// writer of the zone can: a forged marker that claims two tenants in
// one comment, which names neither, and one whose tenant holds a
// terminal escape and a right-to-left override (Cloudflare refuses line
// breaks in a comment), which the plan shows escaped.
func TestForeignCommentsClaimNoTenant(t *testing.T) {
	f := newFixture(t)
	f.add(t, cftest.Record{Name: "keep." + zoneName, Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")})
	f.add(t, cftest.Record{Name: "shared." + zoneName, Type: "A", Content: "192.0.2.2", TTL: 300,
		Comment: "managed by site tenant=lab and sjc"})
	f.add(t, cftest.Record{Name: "www." + zoneName, Type: "A", Content: "192.0.2.3", TTL: 300,
		Comment: "managed by site tenant=lab\x1b[2J\u202e"})
	sp := f.plan(t, f.step(rr("keep."+zoneName, "A", 300, "192.0.2.1"), rr("www."+zoneName, "A", 300, "192.0.2.4")))
	if got := summary(sp.Changes); len(got) != 1 || !strings.Contains(got[0], "www.") {
		t.Fatalf("got %v, want only the overwrite of www: a comment naming two tenants is neither's to delete", got)
	}
	c := sp.Changes[0]
	for _, text := range []string{c.Reason, render(c.Before["owner"])} {
		if i := strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }); i >= 0 {
			t.Errorf("%q holds %q, which the plan prints as it is", text, text[i:i+1])
		}
	}
	if !strings.Contains(c.Reason, `lab\x1b[2J\u202e`) {
		t.Errorf("reason %q does not show the forged owner escaped", c.Reason)
	}
}

func render(v any) string { s, _ := v.(string); return s }

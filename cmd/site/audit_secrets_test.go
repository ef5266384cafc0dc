package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare/cftest"
)

// These tests make a backend misbehave in the worst way for secrets: its
// error answer echoes the credential the request carried (a proxy or an
// API that quotes the offending header back). Whatever site does with
// that error (a blocked step, a failed apply, an export that stops) the
// value must not reach stdout, stderr or a saved plan.

// echoProxy forwards to target, except that requests for which echo
// returns true are answered with status and a body built by body from
// the credential the request carried.
func echoProxy(t *testing.T, target string, echo func(*http.Request) bool, status int, body func(cred string) string) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !echo(r) {
			rp.ServeHTTP(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		cred := r.Header.Get("X-API-Key")
		if a := r.Header.Get("Authorization"); a != "" {
			cred = a
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body(cred))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// cfEcho is a Cloudflare v4 error envelope quoting the Authorization
// header back.
func cfEcho(cred string) string {
	return `{"success":false,"errors":[{"code":6111,"message":` + jsonString("Invalid format for Authorization header: "+cred) + `}],"messages":[],"result":null}`
}

// pdnsEcho is a PowerDNS error body quoting the X-API-Key header back.
func pdnsEcho(cred string) string {
	return `{"error":` + jsonString("backend said: bad key "+cred) + `}`
}

func always(*http.Request) bool { return true }

func onWrite(r *http.Request) bool { return r.Method != http.MethodGet }

func TestSecretEchoedByCloudflareNeverPrinted(t *testing.T) {
	tests := []struct {
		name string
		echo func(*http.Request) bool
		args func(file, planFile string) []string
	}{
		{"diff when every answer echoes the token", always,
			func(file, planFile string) []string { return []string{"diff", "--out", planFile, file} }},
		{"apply when the batch answer echoes the token", onWrite,
			func(file, _ string) []string { return []string{"apply", file} }},
		{"export when every answer echoes the token", always,
			func(_, _ string) []string {
				return []string{"export", "cloudflare", "--zone", "sjc.example.net", "--tenant", "sjc", "--token-env", "CF_TOKEN"}
			}},
		{"export marking when the batch answer echoes the token", onWrite,
			func(_, _ string) []string {
				return []string{"export", "cloudflare", "--zone", "sjc.example.net", "--tenant", "sjc", "--token-env", "CF_TOKEN", "--adopt"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := newColdStart(t, "sjc.example.net")
			if _, err := cs.cf.AddRecord(cs.zoneID, cftestA("old.sjc.example.net", "192.0.2.1")); err != nil {
				t.Fatal(err)
			}
			proxy := echoProxy(t, cs.cf.URL, tt.echo, http.StatusBadRequest, cfEcho)
			t.Setenv("CF_TOKEN", cfToken)
			t.Setenv("SITE_CLOUDFLARE_API_URL", proxy.URL)
			dir := t.TempDir()
			file := sjcFile(t, sjcLike(), []string{cs.vault.URL}, proxy.URL)
			planFile := filepath.Join(dir, "plan.json")
			code, out, errOut := cs.site(t, tt.args(file, planFile)...)
			if code == exitOK {
				t.Fatalf("exit 0, want an error: the proxy refused\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			if !strings.Contains(out+errOut, "Invalid format for Authorization header") {
				t.Fatalf("the echoing answer did not reach site's report:\n%s%s", out, errOut)
			}
			saved, _ := os.ReadFile(planFile)
			if s := cs.outputs.String() + string(saved); strings.Contains(s, cfToken) {
				t.Errorf("the token appears in the output or plan:\n%s", s)
			}
		})
	}
}

func TestSecretEchoedByPowerDNSNeverPrinted(t *testing.T) {
	tests := []struct {
		name string
		echo func(*http.Request) bool
		args func(file string) []string
	}{
		{"diff when every answer echoes the key", always,
			func(file string) []string { return []string{"diff", file} }},
		{"apply when the PATCH answer echoes the key", onWrite,
			func(file string) []string { return []string{"apply", file} }},
		{"export when every answer echoes the key", always,
			func(string) []string {
				return []string{"export", "powerdns", "--zone", "echo.example.test", "--tenant", "office1", "--api-key-env", "PDNS_API_KEY"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, "echo.example.test.")
			proxy := echoProxy(t, srv.URL, tt.echo, http.StatusUnprocessableEntity, pdnsEcho)
			file := tenantFile(t, srv, "echo.example.test", `
			www: A: ["192.0.2.80"]`)
			// The operator's file sends the key to the echoing proxy.
			site := filepath.Join(filepath.Dir(file), "site.cue")
			src, err := os.ReadFile(site)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(site, []byte(strings.ReplaceAll(string(src), srv.URL, proxy.URL)), 0o644); err != nil {
				t.Fatal(err)
			}
			args := tt.args(file)
			if args[0] == "export" {
				args = append(args, "--url", proxy.URL)
			}
			// siteRun fails the test if the key is printed.
			code, out, errOut := siteRun(t, srv, args...)
			if code == exitOK {
				t.Fatalf("exit 0, want an error: the proxy refused\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			if !strings.Contains(out+errOut, "backend said: bad key") {
				t.Fatalf("the echoing answer did not reach site's report:\n%s%s", out, errOut)
			}
		})
	}
}

func cftestA(name, addr string) cftest.Record {
	return cftest.Record{Name: name, Type: "A", Content: addr, TTL: 300}
}

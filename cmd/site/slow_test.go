package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// holdRequest makes srv hold the first request match accepts until the
// returned release is called; arrived is closed when it comes. also,
// when not nil, then answers every request as a FailWhen function does.
func holdRequest(t *testing.T, srv *pdnstest.Server, match func(*http.Request) bool, also func(*http.Request) (int, string, bool)) (arrived chan struct{}, release func()) {
	arrived, held := make(chan struct{}), make(chan struct{})
	var once, released sync.Once
	release = func() { released.Do(func() { close(held) }) }
	// Also when the test fails first: the server's proxy waits for the
	// request it holds before it shuts down.
	t.Cleanup(release)
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if match(r) {
			once.Do(func() {
				close(arrived)
				<-held
			})
		}
		if also != nil {
			return also(r)
		}
		return 0, "", false
	})
	return arrived, release
}

// TestDiffNamesTheRequestASlowServerHolds: while PowerDNS holds the
// zone's GET (as one stopped with SIGSTOP does), site diff says on
// stderr whom it waits for and which request, and keeps it out of the
// JSON plan on stdout. It said nothing at all until the server answered
// or the request timed out.
func TestDiffNamesTheRequestASlowServerHolds(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := tenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	_, release := holdRequest(t, srv, func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone)
	}, nil)
	diffUntilNamed(t, file, "site: waiting for PowerDNS pdns ("+srv.URL+") to answer GET zones/"+zone+" (", release)
}

// TestInterruptNamesTheRequestInFlight: the first Ctrl-C while apply
// reads its lock from a server that holds the read says what it stops
// and which request it was waiting for; it said only "starting nothing
// new".
func TestInterruptNamesTheRequestInFlight(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	// The lock in the zone's metadata (site.cue locks), read first.
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	arrived, release := holdRequest(t, srv, func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone+"/metadata")
	}, nil)
	s, done := startInterruptible(t, "apply", file)
	select {
	case <-arrived:
	case <-done:
		t.Fatalf("site ended before reading its lock (exit %d):\n%s", <-s.code, s.err)
	}
	s.sigs <- os.Interrupt
	want := "site: interrupted: stopping the observation of tenant office1's apply lock, which was waiting for PowerDNS pdns (" + srv.URL +
		") to answer GET zones/" + zone + "/metadata (it only reads: nothing was changed); interrupt again to exit within 2s"
	if !s.err.waitFor(want, done) {
		t.Errorf("stderr lacks %q:\n%s", want, s.err)
	}
	release()
	<-done
	if code := <-s.code; code != exitError {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitError, s.err)
	}
}

// holdingServer serves h, except that it holds the first request match
// accepts, unanswered, until release is called (as a server stopped
// with SIGSTOP, or a proxy that stalls, does); arrived is closed when
// that request comes.
func holdingServer(t *testing.T, h http.Handler, match func(*http.Request) bool) (url string, arrived chan struct{}, release func()) {
	arrived, held := make(chan struct{}), make(chan struct{})
	var once, released sync.Once
	release = func() { released.Do(func() { close(held) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if match(r) {
			once.Do(func() {
				close(arrived)
				<-held
			})
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(release) // before Close, which waits for the held request
	return srv.URL, arrived, release
}

// diffUntilNamed runs site diff --format json on file until stderr says
// want, then releases the held request and checks that the run ended
// well, with the JSON plan alone on stdout and no secret in its output.
func diffUntilNamed(t *testing.T, file, want string, release func(), secrets ...string) {
	t.Helper()
	old := slowRequestAfter
	slowRequestAfter = time.Millisecond // the server holds the request until the message comes
	t.Cleanup(func() { slowRequestAfter = old })
	var stdout strings.Builder
	stderr := &watchBuffer{changed: make(chan struct{})}
	done, code := make(chan struct{}), 0
	go func() {
		defer close(done)
		code = run([]string{"diff", "--format", "json", file}, &stdout, stderr)
	}()
	if !stderr.waitFor(want, done) {
		t.Fatalf("stderr lacks %q:\n%s", want, stderr)
	}
	release()
	<-done
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	var plan map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &plan); err != nil {
		t.Errorf("stdout is not the JSON plan alone: %v\n%s", err, stdout.String())
	}
	for _, s := range secrets {
		if strings.Contains(stdout.String()+stderr.String(), s) {
			t.Errorf("a credential appears in the output:\n%s", stderr)
		}
	}
}

// TestDiffNamesTheRequestCloudflareHolds: while Cloudflare holds the
// listing of a zone's records, site diff names it on stderr, with the
// provider and its API URL (never the token). It said nothing until
// the request's two-minute timeout.
func TestDiffNamesTheRequestCloudflareHolds(t *testing.T) {
	const zone = "slow.example.test"
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	t.Setenv("CF_TOKEN", cfToken)
	t.Setenv("NO_COLOR", "1")
	t.Setenv(cloudflare.EnvAPIURL, "")
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000}
	})
	id := cf.AddZone(zone)
	front, _, release := holdingServer(t, cf.Config.Handler, func(r *http.Request) bool {
		return r.Method == http.MethodGet && r.URL.Path == "/zones/"+id+"/dns_records"
	})
	file := writeSpec(t, siteSrc(cfProvider("cf", front, `{env: "CF_TOKEN"}`),
		grant{tenant: "office1", domains: []string{zone}, providers: []string{"cf"}}), "office1.cue",
		fmt.Sprintf("package tenants\n\ntenants: office1: {domain: %q, dns: zones: %q: {provider: \"cf\", records: www: A: [\"192.0.2.1\"]}}\n", zone, zone))
	diffUntilNamed(t, file, "site: waiting for Cloudflare cf ("+front+") to answer GET zones/"+id+"/dns_records (", release, cfToken)
}

// TestDiffNamesTheRequestVaultHolds: while the Vault that keeps a
// Cloudflare token holds the read of it, site diff names the store, its
// address and the secret's path on stderr (never the token). It said
// nothing until the address's timeout.
func TestDiffNamesTheRequestVaultHolds(t *testing.T) {
	const zone = "slow.example.test"
	cf, store := cloudflareTokenInVault(t)
	cf.AddZone(zone)
	front, _, release := holdingServer(t, store.Handler(), func(r *http.Request) bool {
		return r.Method == http.MethodGet && r.URL.Path == "/v1/secret/data/dns/cloudflare"
	})
	site := siteSrc(fmt.Sprintf("vaults: bao: {addrs: [%q], mount: \"secret\", token: env: \"VAULT_TOKEN\"}\n", front)+
		cfProvider("cf", cf.URL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`),
		grant{tenant: "office1", domains: []string{zone}, providers: []string{"cf"}})
	file := writeSpec(t, site, "office1.cue",
		fmt.Sprintf("package tenants\n\ntenants: office1: {domain: %q, dns: zones: %q: {provider: \"cf\", records: www: A: [\"192.0.2.1\"]}}\n", zone, zone))
	diffUntilNamed(t, file, "site: waiting for Vault bao ("+front+") to answer GET secret/data/dns/cloudflare (", release, cfToken, vaultToken)
}

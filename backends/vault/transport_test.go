package vault

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/backends/vault/vaulttest"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// requests counts every request the server got, whatever the route.
func requests(srv *vaulttest.Dev) int {
	n := 0
	for _, r := range []string{"health", "read", "login", "other"} {
		n += srv.Count(r)
	}
	return n
}

// TestRedirectKeepsToken: the first address is a loopback server that
// answers 307 to a second one on another port (another host:port). The
// token, the AppRole secret id and the login body never reach the
// second server; the read moves on to the next address, the real Vault.
func TestRedirectKeepsToken(t *testing.T) {
	for _, approle := range []bool{false, true} {
		name := map[bool]string{false: "token", true: "approle"}[approle]
		t.Run(name, func(t *testing.T) {
			srv := newVault(t)
			srv.AddRole("role-1", "s3cret-id")
			var mu sync.Mutex
			var stolen []string
			second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				stolen = append(stolen, r.Method+" "+r.URL.Path+" token="+r.Header.Get("X-Vault-Token")+" body="+string(body))
				mu.Unlock()
			}))
			defer second.Close()
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, second.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer front.Close()

			step := secretStep(front.URL, srv.URL)
			env := map[string]string{"VAULT_TOKEN": testToken, "ROLE_ID": "role-1", "SECRET_ID": "s3cret-id"}
			if approle {
				step.Secret.Store.AppRole = &model.AppRole{RoleID: model.Credential{Env: "ROLE_ID"}, SecretID: model.Credential{Env: "SECRET_ID"}}
			}
			run := newRun(env)
			sp, err := New().Plan(context.Background(), step, run)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if got := detailOf(t, sp).Addr; got != srv.URL {
				t.Errorf("read from %q, want %q (the next address after the redirect)", got, srv.URL)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stolen) != 0 {
				t.Errorf("the second server got %q, want nothing", stolen)
			}
		})
	}
}

// TestRedirectElsewhereIsNamed: with no other address, the refusal is
// what the error says.
func TestRedirectElsewhereIsNamed(t *testing.T) {
	second := httptest.NewServer(http.NotFoundHandler())
	defer second.Close()
	front := httptest.NewServer(http.RedirectHandler(second.URL+"/v1/secret/data/dns/cloudflare", http.StatusTemporaryRedirect))
	defer front.Close()
	_, err := New().Plan(context.Background(), secretStep(front.URL), newRun(map[string]string{"VAULT_TOKEN": testToken}))
	var ge *backends.GatedError
	if err == nil || errors.As(err, &ge) || !strings.Contains(err.Error(), "refused the redirect") {
		t.Errorf("got %v, want an ungated error naming the refused redirect", err)
	}
}

// TestTLSFailureIsFinal: a TLS failure at the first address stops the
// read with the address and the reason; the plaintext loopback address
// after it gets no request. With the server's CA in VAULT_CACERT the
// same server is read.
func TestTLSFailureIsFinal(t *testing.T) {
	srv := newVault(t)
	tlsSrv := httptest.NewTLSServer(srv.Handler()) // self-signed, same data
	defer tlsSrv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	// A server that wants a client certificate: the handshake ends with
	// the server's alert, once the client trusts it. TLS 1.2, so the
	// alert comes inside the handshake, before the client sends its
	// request (TLS 1.3 sends it after, racing the request's write).
	wantsCert := httptest.NewUnstartedServer(srv.Handler())
	wantsCert.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert, MaxVersion: tls.VersionTLS12}
	wantsCert.StartTLS()
	defer wantsCert.Close()
	wantsCA := filepath.Join(t.TempDir(), "wants.pem")
	if err := os.WriteFile(wantsCA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: wantsCert.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	// A loopback service that speaks neither TLS nor HTTP.
	banner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer banner.Close()
	go func() {
		for {
			c, err := banner.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			c.Close()
		}
	}()
	fallback := vaulttest.StartDev(t, testToken)
	fallback.Put("secret", "dns/cloudflare", map[string]any{"token": testValue})

	tests := []struct {
		name  string
		first string
		env   map[string]string
		want  string // in the error; "" means the first address is read
	}{
		{"self-signed", tlsSrv.URL, nil, "certificate signed by unknown authority"},
		{"https to a plain server", strings.Replace(srv.URL, "http://", "https://", 1), nil, "does not answer TLS"},
		{"not TLS, not HTTP", "https://" + banner.Addr().String(), nil, "does not answer TLS"},
		{"server wants a client certificate", wantsCert.URL, map[string]string{"VAULT_CACERT": wantsCA}, "the server ended the handshake"},
		{"self-signed with its CA", tlsSrv.URL, map[string]string{"VAULT_CACERT": caFile}, ""},
		{"self-signed with its CA as bytes", tlsSrv.URL, map[string]string{"VAULT_CACERT_BYTES": string(ca)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"VAULT_TOKEN": testToken}
			for k, v := range tt.env {
				env[k] = v
			}
			before := requests(fallback)
			sp, err := New().Plan(context.Background(), secretStep(tt.first, fallback.URL), newRun(env))
			if requests(fallback) != before {
				t.Errorf("the plaintext fallback got %d requests, want none", requests(fallback)-before)
			}
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if got := detailOf(t, sp).Addr; got != tt.first {
					t.Errorf("read from %q, want %q", got, tt.first)
				}
				return
			}
			var ge *backends.GatedError
			switch {
			case err == nil:
				t.Fatalf("got a secret, want a TLS failure")
			case errors.As(err, &ge):
				t.Errorf("got %v gated as unreachable, want a plain error", err)
			}
			for _, want := range []string{"TLS failure at " + tt.first, tt.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if h := hint.Of(err); h != (hint.Hint{Kind: hint.TrustCA}) {
				t.Errorf("hint %+v, want TrustCA (VAULT_CACERT, or renew the certificate)", h)
			}
		})
	}
}

// TestSkipVerifyRefused: VAULT_SKIP_VERIFY never turns verification off
// silently; it is refused before any request.
func TestSkipVerifyRefused(t *testing.T) {
	tests := []struct {
		value string
		ok    bool
	}{
		{"true", false},
		{"1", false},
		{"yes", false}, // not a bool: refused rather than guessed
		{"false", true},
		{"0", true},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			srv := newVault(t)
			run := newRun(map[string]string{"VAULT_TOKEN": testToken, "VAULT_SKIP_VERIFY": tt.value})
			_, err := New().Plan(context.Background(), secretStep(srv.URL), run)
			if tt.ok {
				if err != nil {
					t.Errorf("got %v, want the secret read", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "VAULT_SKIP_VERIFY") || hint.Of(err) != (hint.Hint{Kind: hint.TrustCA, Setting: "VAULT_SKIP_VERIFY"}) {
				t.Errorf("got %v, want a refusal naming VAULT_SKIP_VERIFY, with a TrustCA hint to unset it", err)
			}
			if n := requests(srv); n != 0 {
				t.Errorf("the store got %d requests, want none", n)
			}
		})
	}
}

// TestLibraryIgnoresProcessSkipVerify: the Vault library reads
// VAULT_SKIP_VERIFY from the process environment by itself; site builds
// its client so that only what Run.Getenv says counts, and that refuses
// the variable. Here the run's environment lacks it, so the certificate
// is verified.
func TestLibraryIgnoresProcessSkipVerify(t *testing.T) {
	srv := newVault(t)
	tlsSrv := httptest.NewTLSServer(srv.Handler())
	defer tlsSrv.Close()
	t.Setenv("VAULT_SKIP_VERIFY", "true")
	_, err := New().Plan(context.Background(), secretStep(tlsSrv.URL), newRun(map[string]string{"VAULT_TOKEN": testToken}))
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("got %v, want the self-signed certificate refused", err)
	}
	if n := srv.Count("read"); n != 0 {
		t.Errorf("the store got %d reads, want none", n)
	}
}

// TestAddressRules: every address (the spec's, SITE_VAULT_ADDRS',
// VAULT_ADDR) is checked before any request.
func TestAddressRules(t *testing.T) {
	srv := newVault(t)
	tests := []struct {
		name      string
		addrs     []string
		env       map[string]string
		plaintext bool
		want      error // nil: the secret is read
	}{
		{name: "loopback http", addrs: []string{srv.URL}},
		{name: "userinfo", addrs: []string{strings.Replace(srv.URL, "http://", "http://admin:hunter2@", 1)}, want: endpoint.ErrUserinfo},
		{name: "http to another host", addrs: []string{"http://10.77.0.13:8200", srv.URL}, want: endpoint.ErrPlaintext},
		{name: "http in VAULT_ADDR", addrs: []string{srv.URL}, env: map[string]string{"VAULT_ADDR": "http://10.77.0.13:8200"}, want: endpoint.ErrPlaintext},
		{name: "http in SITE_VAULT_ADDRS", env: map[string]string{"SITE_VAULT_ADDRS": "http://10.77.0.13:8200," + srv.URL}, want: endpoint.ErrPlaintext},
		// Allowed, so dialled: 192.0.2.1 (TEST-NET-1) does not answer,
		// and the read moves on to the real Vault.
		{name: "http marked plaintext", addrs: []string{"http://192.0.2.1:8200", srv.URL}, plaintext: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"VAULT_TOKEN": testToken}
			for k, v := range tt.env {
				env[k] = v
			}
			step := secretStep(tt.addrs...)
			step.Secret.Store.Plaintext = tt.plaintext
			before := requests(srv)
			d := New()
			d.Timeout = 100 * time.Millisecond // only how long the unanswered address is waited for
			_, err := d.Plan(context.Background(), step, newRun(env))
			if tt.want == nil {
				if err != nil {
					t.Errorf("got %v, want the secret read", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q repeats the password", err)
			}
			if n := requests(srv) - before; n != 0 {
				t.Errorf("the store got %d requests, want none", n)
			}
		})
	}
}

// TestPathTraversalRefused: a path or mount that could leave the mount
// is refused before any request.
func TestPathTraversalRefused(t *testing.T) {
	tests := []struct {
		name, path, mount, approle string
	}{
		{name: "dot-dot", path: "../../../sys/raw/x"},
		{name: "dot-dot inside", path: "dns/../../sys/raw/x"},
		{name: "dot", path: "./dns/cloudflare"},
		{name: "leading slash", path: "/sys/raw/x"},
		{name: "trailing slash", path: "dns/cloudflare/"},
		{name: "doubled slash", path: "dns//cloudflare"},
		{name: "empty", path: ""},
		{name: "percent-encoded dot-dot", path: "%2e%2e/%2e%2e/sys/raw/x"},
		{name: "percent-encoded slash", path: "dns%2f..%2fsys"},
		{name: "backslash", path: `..\..\sys\raw`},
		{name: "query", path: "dns/cloudflare?version=1"},
		{name: "control character", path: "dns/cloud\nflare"},
		{name: "mount", path: "dns/cloudflare", mount: "secret/../sys"},
		{name: "approle mount", path: "dns/cloudflare", approle: "../sys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newVault(t)
			step := secretStep(srv.URL)
			step.Secret.Ref.Path = tt.path
			if tt.mount != "" {
				step.Secret.Store.Mount = tt.mount
			}
			if tt.approle != "" {
				step.Secret.Store.AppRole = &model.AppRole{RoleID: model.Credential{Env: "VAULT_TOKEN"},
					SecretID: model.Credential{Env: "VAULT_TOKEN"}, Mount: tt.approle}
			}
			_, err := New().Plan(context.Background(), step, newRun(map[string]string{"VAULT_TOKEN": testToken}))
			if err == nil || !strings.Contains(err.Error(), "vault bao") {
				t.Errorf("got %v, want the path refused", err)
			}
			if n := requests(srv); n != 0 {
				t.Errorf("the store got %d requests, want none", n)
			}
		})
	}
}

func TestCheckPathAccepts(t *testing.T) {
	for _, p := range []string{"dns/cloudflare", "secret", "team-a/dns/cf_token", "a.b/c..d/.e"} {
		if err := checkPath(p); err != nil {
			t.Errorf("checkPath(%q): got %v, want accepted", p, err)
		}
	}
}

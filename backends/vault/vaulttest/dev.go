package vaulttest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/compiler/testneed"
)

// Version is the Vault release the tests run as their real server. The
// binary is built from github.com/hashicorp/vault at this version by
// the module in vaultserver/ (`make vault-server`).
const Version = "v1.21.0"

// EnvBin names the Vault binary to run instead of the cached build.
const EnvBin = "SITE_TEST_VAULT_BIN"

// BinPath is where `make vault-server` puts the binary: a cache outside
// the repository, keyed by version, so a checkout never holds the BSL
// licensed build and a second checkout reuses it.
func BinPath() string {
	if p := os.Getenv(EnvBin); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "site-test", "vault-"+Version, "vault")
}

// RequireDev skips t when the Vault binary is missing, or fails it in CI
// (CI=true): CI must never pass by skipping what it exists to check.
func RequireDev(t testing.TB) string {
	t.Helper()
	bin := BinPath()
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("no Vault server at %s (%v): build it with `make vault-server` (about 20 CPU-minutes, once per version) or set %s", bin, err, EnvBin)
		testneed.Need(t, msg)
	}
	return bin
}

// Dev is a running real Vault, `vault server -dev`: in memory, unsealed,
// HTTP on a loopback port, KV v2 mounted at secret/. Requests reach it
// through a counting proxy, so tests can assert how many requests site
// made, by route (health, read, write, login).
type Dev struct {
	// URL is the address to give the code under test (the proxy's).
	URL string
	// DirectURL is the server's own listener.
	DirectURL string
	// RootToken is the dev server's root token.
	RootToken string

	t         testing.TB
	unsealKey string
	client    *api.Client // root, direct
	cmd       *exec.Cmd
	done      chan struct{}
	proxy     *httptest.Server
	log       string

	mu     sync.Mutex
	counts map[string]int
}

// StartDev starts a dev server whose root token is rootToken (not
// "hvs.…": Vault refuses a chosen ID with its own prefix), and stops it
// when t ends. It skips or fails t as RequireDev does when the binary
// is missing.
func StartDev(t testing.TB, rootToken string) *Dev {
	t.Helper()
	bin := RequireDev(t)
	var lastErr error
	// The port is picked free, then bound by Vault: another process may
	// take it (or the cluster port after it) in between, so retry.
	for range 5 {
		d, err := startDev(t, bin, rootToken)
		if err == nil {
			return d
		}
		lastErr = err
	}
	t.Fatalf("start the Vault dev server: %v", lastErr)
	return nil
}

func startDev(t testing.TB, bin, rootToken string) (*Dev, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	d := &Dev{t: t, DirectURL: "http://" + addr, RootToken: rootToken,
		log: filepath.Join(dir, "vault.log"), done: make(chan struct{}), counts: map[string]int{}}
	logf, err := os.Create(d.log)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	d.cmd = exec.Command(bin, "server", "-dev", "-dev-root-token-id="+rootToken,
		"-dev-listen-address="+addr, "-dev-no-store-token")
	// A clean environment: no VAULT_* of the developer's shell, and a
	// HOME of its own.
	d.cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	if err := d.cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	if err := d.waitReady(); err != nil {
		d.stop()
		return nil, err
	}
	t.Cleanup(d.Close)
	return d, nil
}

// waitReady waits for sys/health to answer and the unseal key to be in
// the log (the dev server prints it once it is unsealed).
func (d *Dev) waitReady() error {
	c, err := api.NewClient(&api.Config{Address: d.DirectURL, MaxRetries: 0, Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	c.SetToken(d.RootToken)
	d.client = c
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			return fmt.Errorf("vault server exited: %s", d.tail())
		default:
		}
		h, err := c.Sys().HealthWithContext(context.Background())
		if err == nil && h.Initialized && !h.Sealed {
			if d.unsealKey = d.logValue("Unseal Key: "); d.unsealKey != "" {
				d.proxy = httptest.NewServer(d.countingProxy())
				d.URL = d.proxy.URL
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("vault server did not become ready within 60s: %s", d.tail())
}

// logValue finds "prefix<value>" in the server's log.
func (d *Dev) logValue(prefix string) string {
	f, err := os.Open(d.log)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if _, v, ok := strings.Cut(sc.Text(), prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// tail is what the server's log says went wrong: from its "Error" line
// when there is one (Vault prints it before its shutdown messages), else
// the end of the log.
func (d *Dev) tail() string {
	b, _ := os.ReadFile(d.log)
	s := string(b)
	if i := strings.Index(s, "\nError "); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 2000 {
		s = s[:2000]
	}
	return s
}

func (d *Dev) countingProxy() http.Handler {
	u, _ := url.Parse(d.DirectURL)
	rp := httputil.NewSingleHostReverseProxy(u)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.counts[route(r)]++
		d.mu.Unlock()
		rp.ServeHTTP(w, r)
	})
}

// Count returns how many requests a route has received through URL:
// "health", "read", "write", "login" or "other".
func (d *Dev) Count(route string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.counts[route]
}

// Close stops the server (by its PID) and the proxy. It is registered
// with t.Cleanup by StartDev; calling it again does nothing.
func (d *Dev) Close() {
	if d.proxy != nil {
		d.proxy.Close()
	}
	d.stop()
}

func (d *Dev) stop() {
	select {
	case <-d.done:
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.done
	}
}

// freePort asks the kernel for a free loopback port whose successor (the
// dev server's cluster port) is free too.
func freePort() (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free loopback port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+1))
		if err != nil {
			continue
		}
		l2.Close()
		return port, nil
	}
	return 0, errors.New("no free loopback port pair after 20 tries")
}

// Handler is the counting proxy to the server, for a test that puts the
// server behind a listener of its own (a TLS one, say).
func (d *Dev) Handler() http.Handler { return d.proxy.Config.Handler }

// route names what a request asks of Vault, for Count.
func route(r *http.Request) string {
	p := strings.TrimPrefix(r.URL.Path, "/v1/")
	write := r.Method == http.MethodPut || r.Method == http.MethodPost
	switch {
	case p == "sys/health" && r.Method == http.MethodGet:
		return "health"
	case p == "auth/approle/login" && write:
		return "login"
	case strings.Contains(p, "/data/") && r.Method == http.MethodGet:
		return "read"
	case strings.Contains(p, "/data/") && write:
		return "write"
	}
	return "other"
}

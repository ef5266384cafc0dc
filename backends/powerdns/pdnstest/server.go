// Package pdnstest starts a real PowerDNS Authoritative server
// (pdns_server with the gsqlite3 backend, or lmdb, which stores no rrset
// comments, with Options.Backend) on free loopback ports for tests,
// and puts a small counting proxy in front of its HTTP API so tests can
// assert how many requests a run made per zone, or make the API fail.
//
// A test package shares one server: call Shared(t) from any test and wire
// Main into TestMain so the server is stopped (by PID) when the tests end.
//
//	func TestMain(m *testing.M) { os.Exit(pdnstest.Main(m)) }
//
// Tests isolate themselves by using their own zone names. When
// pdns_server is not installed the tests skip with a message, except in CI
// (CI=true), where a missing server fails them: CI must never pass by
// skipping what it exists to check.
package pdnstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/testneed"
)

// SchemaPath is where Debian's pdns-backend-sqlite3 installs the schema.
const SchemaPath = "/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql"

// Server is a running pdns_server and the counting proxy in front of it.
type Server struct {
	// URL is the HTTP API base (scheme://host:port) through the counting
	// proxy; give it to the code under test.
	URL string
	// DirectURL is the API base without the proxy, for measurements that
	// must not pay for it (benchmarks of the raw floor).
	DirectURL string
	// APIKey is the server's api-key.
	APIKey string
	// ServerID is the API's server id ("localhost").
	ServerID string
	// DNSAddr is host:port of the DNS listener (UDP and TCP).
	DNSAddr string
	// Dir holds the config, database and log.
	Dir string

	cmd   *exec.Cmd
	done  chan struct{}
	proxy *httptest.Server

	mu     sync.Mutex
	counts map[string]*Counts // zone name (canonical) or "" for the zone list
	// answered is the size of every answer's body by zone, as counts is
	// keyed (AnswerBytes).
	answered map[string]int
	fail     func(*http.Request) (status int, body string, ok bool)
}

// Options tune a server. The zero value is the defaults.
type Options struct {
	// MaxBodyMB sets webserver-max-bodysize; 0 keeps PowerDNS's 2 MB.
	MaxBodyMB int
	// NoDNSSEC leaves gsqlite3-dnssec off: the server then keeps no keys.
	NoDNSSEC bool
	// Backend is the storage: "" (or GSQLite3) is the tests' sqlite
	// database, LMDB the lmdb backend (pdns-backend-lmdb), which keeps
	// no rrset comments.
	Backend string
	// Second launches a second gsqlite3 backend (gsqlite3:second) with
	// its own database: data there is served over DNS but not listed by
	// the API (HideRecord).
	Second bool
}

// The backends a Server can run on (Options.Backend).
const (
	GSQLite3 = "gsqlite3"
	LMDB     = "lmdb"
)

// ErrNotInstalled means pdns_server is not on PATH.
var ErrNotInstalled = errors.New("pdns_server is not installed (Debian: apt-get install pdns-server pdns-backend-sqlite3 pdns-backend-lmdb sqlite3)")

// Require skips t when pdns_server is missing, or fails it in CI.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("pdns_server"); err != nil {
		testneed.Need(t, ErrNotInstalled.Error())
	}
}

var (
	sharedMu  sync.Mutex
	shared    *Server
	sharedErr error
)

// Shared returns the package's one server, starting it on first use.
// Main stops it.
func Shared(t testing.TB) *Server {
	t.Helper()
	Require(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		dir, err := os.MkdirTemp("", "pdnstest-")
		if err != nil {
			sharedErr = err
		} else {
			shared, sharedErr = Start(dir, Options{})
		}
	}
	if sharedErr != nil {
		t.Fatalf("start shared pdns_server: %v", sharedErr)
	}
	return shared
}

// Main runs the tests and then stops the shared server, if one started.
func Main(m *testing.M) int {
	code := m.Run()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.Close()
		os.RemoveAll(shared.Dir)
		shared = nil
	}
	return code
}

// New starts a server for one test and stops it when the test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts pdns_server with its config and database in dir and waits
// until its API answers. Close stops it.
func Start(dir string, opts Options) (*Server, error) {
	if _, err := exec.LookPath("pdns_server"); err != nil {
		return nil, ErrNotInstalled
	}
	var db string
	switch opts.Backend {
	case "", GSQLite3:
		schema, err := os.ReadFile(SchemaPath)
		if err != nil {
			return nil, fmt.Errorf("read the sqlite schema (install pdns-backend-sqlite3): %w", err)
		}
		db = filepath.Join(dir, "pdns.sqlite3")
		sq := exec.Command("sqlite3", db)
		sq.Stdin = bytes.NewReader(schema)
		if out, err := sq.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("create %s with sqlite3: %w: %s", db, err, out)
		}
		if opts.Second {
			if err := createSecond(dir, schema); err != nil {
				return nil, err
			}
		}
	case LMDB:
		// Where Debian's pdns-backend-lmdb puts the module; without it
		// pdns_server exits with a log line the caller would have to
		// dig out of an error about the API.
		if m, _ := filepath.Glob("/usr/lib/*/pdns/liblmdbbackend.so"); len(m) == 0 {
			return nil, errors.New("the PowerDNS lmdb backend is not installed (Debian: apt-get install pdns-backend-lmdb; make deps installs it)")
		}
		db = filepath.Join(dir, "pdns.lmdb") // pdns_server creates it
	default:
		return nil, fmt.Errorf("pdnstest: no backend %q (%s or %s)", opts.Backend, GSQLite3, LMDB)
	}
	// A free port can be taken by another process between being picked
	// and pdns_server binding it (packages' tests start servers at
	// once): such a start is tried again on other ports.
	for try := 1; ; try++ {
		srv, err := startOnce(dir, db, opts)
		if errors.Is(err, errPortTaken) && try < 3 {
			continue
		}
		return srv, err
	}
}

// errPortTaken is a start whose ports another process took first.
var errPortTaken = errors.New("a port pdns_server was given was taken")

// startOnce starts pdns_server on db with freshly picked ports.
func startOnce(dir, db string, opts Options) (*Server, error) {
	dnsPort, err := freeDNSPort()
	if err != nil {
		return nil, err
	}
	apiPort, err := freeTCPPort()
	if err != nil {
		return nil, err
	}
	s := &Server{
		APIKey:    "pdnstest-key",
		ServerID:  "localhost",
		DNSAddr:   net.JoinHostPort("127.0.0.1", strconv.Itoa(dnsPort)),
		DirectURL: "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(apiPort)),
		Dir:       dir,
		counts:    map[string]*Counts{},
		answered:  map[string]int{},
		done:      make(chan struct{}),
	}
	conf := config(db, dnsPort, apiPort, s.APIKey, dir, opts)
	if err := os.WriteFile(filepath.Join(dir, "pdns.conf"), []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "pdns.log"))
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command("pdns_server", "--config-dir="+dir)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start pdns_server: %w", err)
	}
	go func() { s.cmd.Wait(); logf.Close(); close(s.done) }()
	err = s.waitReady(10 * time.Second)
	// The bind failures are logged before the API answers; one of them
	// means whatever answered may be another server.
	if log, _ := os.ReadFile(filepath.Join(dir, "pdns.log")); bytes.Contains(log, []byte("Address already in use")) {
		s.Close()
		return nil, fmt.Errorf("%w: %s", errPortTaken, log)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	s.startProxy()
	return s, nil
}

// waitReady polls the API until it answers; the deadline only bounds a
// broken start, it asserts nothing about speed.
func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			log, _ := os.ReadFile(filepath.Join(s.Dir, "pdns.log"))
			return fmt.Errorf("pdns_server exited during start:\n%s", log)
		default:
		}
		req, _ := http.NewRequest("GET", s.DirectURL+"/api/v1/servers/localhost", nil)
		req.Header.Set("X-API-Key", s.APIKey)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(30 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(s.Dir, "pdns.log"))
	return fmt.Errorf("pdns_server API did not answer within %s:\n%s", limit, log)
}

// Close stops the server by its PID and the proxy.
func (s *Server) Close() {
	if s.proxy != nil {
		s.proxy.Close()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
}

// BaseURL is the API path prefix for the server, e.g. for raw requests.
func (s *Server) BaseURL() string { return s.URL + "/api/v1/servers/" + s.ServerID }

// Do sends a raw API request straight to the server (not counted) and
// returns status and body.
func (s *Server) Do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var req *http.Request
	var err error
	u := s.DirectURL + "/api/v1/servers/" + s.ServerID + path
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, method, u, rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, u, nil)
	}
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", s.APIKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

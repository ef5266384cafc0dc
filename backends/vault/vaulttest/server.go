package vaulttest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a FAKE Vault/OpenBao server for tests, written from
// the public API documentation (developer.hashicorp.com/vault/api-docs and
// openbao.org/api-docs) and what the Go client
// github.com/hashicorp/vault/api v1.23.0 sends and expects. It is not
// Vault, and site's tests now run against a real one (StartDev): see the
// package doc for why it is still here.
//
// It serves only what site uses:
//
//	GET  /v1/sys/health                     health, honouring the *code query parameters
//	GET  /v1/<mount>/data/<path>            KV v2 read of the latest version
//	PUT  /v1/<mount>/data/<path>            KV v2 write of a new version, honouring
//	                                        options.cas (POST is accepted too)
//	PUT  /v1/auth/approle/login             AppRole login (POST is accepted too)
//
// with Vault's error shapes: 503 {"errors":["Vault is sealed"]}, 403
// with go-multierror's "permission denied" (as Vault 1.21 answers), 404
// {"errors":[]} for a missing secret, 404 with data.data = null plus
// metadata.deletion_time (or metadata.destroyed) for a soft-deleted (or
// destroyed) latest version, and 400 {"errors":["check-and-set parameter
// did not match the current version"]} for a write whose
// options.cas is not the secret's current version (0: the secret must
// not exist; a soft-deleted latest version still counts, as the KV v2
// docs say). Every request is counted by route.
//
// Configure a running fake with its methods; all are safe for
// concurrent use with requests in flight.
type Server struct {
	*httptest.Server

	mu      sync.Mutex
	sealed  bool
	secrets map[string][]*version // "<mount>/<path>" -> versions, oldest first
	tokens  map[string]bool       // valid tokens
	readers map[string]bool       // tokens whose policy allows reads only
	roles   map[string]string     // AppRole role_id -> secret_id
	counts  map[string]int
}

type version struct {
	data      map[string]any
	created   time.Time
	deleted   time.Time // zero while the version is live
	destroyed bool      // its data is gone for good
}

// New starts a fake that accepts token and serves no secrets yet. Close it
// when done (t.Cleanup(s.Close)).
func New(token string) *Server {
	s := &Server{secrets: map[string][]*version{}, tokens: map[string]bool{token: true},
		readers: map[string]bool{}, roles: map[string]string{}, counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Put writes a new version of the KV v2 secret at mount/path.
func (s *Server) Put(mount, path string, data map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := mount + "/" + path
	s.secrets[k] = append(s.secrets[k], &version{data: data, created: time.Now().UTC()})
}

// Latest returns the data of the latest version of mount/path and its
// number (nil and 0 when there is none).
func (s *Server) Latest(mount, path string) (map[string]any, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.secrets[mount+"/"+path]
	if len(vs) == 0 {
		return nil, 0
	}
	return vs[len(vs)-1].data, len(vs)
}

// SoftDelete marks the latest version of mount/path deleted, as
// `vault kv delete` does: its metadata stays readable, its data does not.
func (s *Server) SoftDelete(mount, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if vs := s.secrets[mount+"/"+path]; len(vs) > 0 {
		vs[len(vs)-1].deleted = time.Now().UTC()
	}
}

// Destroy destroys the latest version of mount/path, as `vault kv
// destroy` does: its data is gone for good, its metadata says so.
func (s *Server) Destroy(mount, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if vs := s.secrets[mount+"/"+path]; len(vs) > 0 {
		vs[len(vs)-1].destroyed, vs[len(vs)-1].data = true, nil
	}
}

// Seal makes every request but health answer 503 "Vault is sealed".
func (s *Server) Seal(sealed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sealed = sealed
}

// AddReader adds a token whose policy grants read but not create or
// update: its writes get 403 "permission denied", as Vault answers.
func (s *Server) AddReader(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[token], s.readers[token] = true, true
}

// AddRole lets AppRole logins with roleID and secretID succeed.
func (s *Server) AddRole(roleID, secretID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.roles[roleID] = secretID
}

// Count returns how many requests a route has received: "health", "read",
// "write", "login" or "other".
func (s *Server) Count(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[route]
}

// route names the kind of request r is, as Count reports it.
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

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(r.URL.Path, "/v1/")
	rt := route(r)
	s.counts[rt]++
	switch rt {
	case "health":
		s.health(w, r)
	case "login":
		s.login(w, r)
	case "read":
		s.read(w, r, p)
	case "write":
		s.write(w, r, p)
	default:
		// Vault answers unknown paths with 404 and an empty error list
		// (or 405 for a wrong method); site never sends these.
		writeJSON(w, http.StatusNotFound, map[string]any{"errors": []string{}})
	}
}

// health answers like /v1/sys/health: 200 when active, 503 when sealed,
// each status overridable with the documented query parameters (the Go
// client sends sealedcode=299 and friends so that it gets a body back).
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	code := http.StatusOK
	if s.sealed {
		code = http.StatusServiceUnavailable
		if c, err := strconv.Atoi(r.URL.Query().Get("sealedcode")); err == nil {
			code = c
		}
	} else if c, err := strconv.Atoi(r.URL.Query().Get("activecode")); err == nil {
		code = c
	}
	writeJSON(w, code, map[string]any{
		"initialized": true, "sealed": s.sealed, "standby": false,
		"performance_standby": false, "replication_performance_mode": "disabled",
		"replication_dr_mode": "disabled", "server_time_utc": time.Now().Unix(),
		"version": "fake", "cluster_name": "vaulttest", "cluster_id": "vaulttest",
	})
}

func (s *Server) authorised(r *http.Request) bool {
	return s.tokens[r.Header.Get("X-Vault-Token")]
}

// read serves GET /v1/<mount>/data/<path>. The fake has no policies: a
// known token may read every path, any other token gets 403 (Vault's
// answer both for an unknown token and for a token whose policy does not
// cover the path).
func (s *Server) read(w http.ResponseWriter, r *http.Request, p string) {
	if s.sealed {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"errors": []string{"Vault is sealed"}})
		return
	}
	if !s.authorised(r) {
		writeJSON(w, http.StatusForbidden, map[string]any{"errors": []string{unknownToken}})
		return
	}
	mount, path, _ := strings.Cut(p, "/data/")
	vs := s.secrets[mount+"/"+path]
	if len(vs) == 0 {
		writeJSON(w, http.StatusNotFound, map[string]any{"errors": []string{}})
		return
	}
	v := vs[len(vs)-1]
	meta := map[string]any{
		"created_time": v.created.Format(time.RFC3339Nano), "custom_metadata": nil,
		"deletion_time": "", "destroyed": v.destroyed, "version": len(vs),
	}
	if !v.deleted.IsZero() || v.destroyed {
		// KV v2 answers a soft-deleted or destroyed latest version with
		// 404 but a body that still carries the version metadata and
		// data: null.
		if !v.deleted.IsZero() {
			meta["deletion_time"] = v.deleted.Format(time.RFC3339Nano)
		}
		writeJSON(w, http.StatusNotFound, secretBody(map[string]any{"data": nil, "metadata": meta}, nil))
		return
	}
	writeJSON(w, http.StatusOK, secretBody(map[string]any{"data": v.data, "metadata": meta}, nil))
}

// write serves PUT /v1/<mount>/data/<path> as the KV v2 docs describe
// it: body {"data": {...}, "options": {"cas": N}}. Without cas the write
// always succeeds; with it, only when N is the current version (0: no
// version yet). The answer is the new version's metadata.
func (s *Server) write(w http.ResponseWriter, r *http.Request, p string) {
	if s.sealed {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"errors": []string{"Vault is sealed"}})
		return
	}
	if !s.authorised(r) {
		writeJSON(w, http.StatusForbidden, map[string]any{"errors": []string{unknownToken}})
		return
	}
	if s.readers[r.Header.Get("X-Vault-Token")] {
		writeJSON(w, http.StatusForbidden, map[string]any{"errors": []string{deniedByPolicy}})
		return
	}
	var body struct {
		Data    map[string]any `json:"data"`
		Options struct {
			CAS *int `json:"cas"`
		} `json:"options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []string{"failed to parse JSON input: " + err.Error()}})
		return
	}
	if body.Data == nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []string{"no data provided"}})
		return
	}
	mount, path, _ := strings.Cut(p, "/data/")
	k := mount + "/" + path
	if body.Options.CAS != nil && *body.Options.CAS != len(s.secrets[k]) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []string{"check-and-set parameter did not match the current version"}})
		return
	}
	v := &version{data: body.Data, created: time.Now().UTC()}
	s.secrets[k] = append(s.secrets[k], v)
	writeJSON(w, http.StatusOK, secretBody(map[string]any{
		"created_time": v.created.Format(time.RFC3339Nano), "custom_metadata": nil,
		"deletion_time": "", "destroyed": false, "version": len(s.secrets[k]),
	}, nil))
}

// login serves AppRole login. Vault's exact error text for a wrong
// secret_id has changed between releases ("invalid secret id", later
// "invalid role or secret ID"); the fake answers 400 with the newer one.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if s.sealed {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"errors": []string{"Vault is sealed"}})
		return
	}
	var body struct {
		RoleID   string `json:"role_id"`
		SecretID string `json:"secret_id"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []string{"failed to parse JSON input: " + err.Error()}})
		return
	}
	want, ok := s.roles[body.RoleID]
	if !ok || body.SecretID != want {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []string{"invalid role or secret ID"}})
		return
	}
	tok := "hvs.fake" + randomHex(12)
	s.tokens[tok] = true
	writeJSON(w, http.StatusOK, secretBody(nil, map[string]any{
		"client_token": tok, "accessor": randomHex(12), "policies": []string{"default"},
		"token_policies": []string{"default"}, "lease_duration": 3600, "renewable": true,
		"metadata": map[string]any{"role_name": "site"},
	}))
}

// Vault 1.21 answers a 403 with go-multierror's text, as a real dev
// server shows (TestFakeAnswersAsVault): two errors for a token it does
// not know, one for a token whose policy does not allow the request.
const (
	unknownToken   = "2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n"
	deniedByPolicy = "1 error occurred:\n\t* permission denied\n\n"
)

// secretBody is the envelope Vault puts around every logical response.
func secretBody(data, auth map[string]any) map[string]any {
	return map[string]any{
		"request_id": randomHex(8), "lease_id": "", "renewable": false, "lease_duration": 0,
		"data": data, "wrap_info": nil, "warnings": nil, "auth": auth,
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

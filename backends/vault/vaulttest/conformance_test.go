package vaulttest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// store is what both the fake and the real dev server let a test do.
type store interface {
	Put(mount, path string, data map[string]any)
	SoftDelete(mount, path string)
	Destroy(mount, path string)
	Seal(bool)
	AddReader(token string)
	AddRole(roleID, secretID string)
	Count(route string) int
}

// exchange is one request of the conformance table and the parts of the
// answer site reads: status, content type, the error list, and the shape
// of data (which keys are present, whether data.data is null).
type exchange struct {
	name   string
	setup  func(s store)
	method string
	path   string
	token  string
	body   string
}

type answer struct {
	Status      int
	ContentType string
	Errors      []string
	DataKeys    []string // keys of "data"
	DataData    string   // "null", "object" or "absent"
	MetaKeys    []string // keys of data.metadata, or of data for a write
	Deleted     bool     // metadata.deletion_time is set
	Destroyed   bool     // metadata.destroyed is true
	AuthToken   bool     // auth.client_token is set
}

const (
	confRoot   = "conf-root-token"
	confReader = "conf-reader-token"
)

var exchanges = []exchange{
	{"read latest", func(s store) { s.Put("secret", "a", map[string]any{"k": "v"}) }, "GET", "secret/data/a", confRoot, ""},
	{"read missing", nil, "GET", "secret/data/none", confRoot, ""},
	{"read soft-deleted latest", func(s store) {
		s.Put("secret", "a", map[string]any{"k": "v"})
		s.SoftDelete("secret", "a")
	}, "GET", "secret/data/a", confRoot, ""},
	{"read destroyed latest", func(s store) {
		s.Put("secret", "a", map[string]any{"k": "v"})
		s.Destroy("secret", "a")
	}, "GET", "secret/data/a", confRoot, ""},
	{"read with an unknown token", func(s store) { s.Put("secret", "a", map[string]any{"k": "v"}) }, "GET", "secret/data/a", "nope", ""},
	{"read sealed", func(s store) { s.Put("secret", "a", map[string]any{"k": "v"}); s.Seal(true) }, "GET", "secret/data/a", confRoot, ""},
	{"write new", nil, "PUT", "secret/data/a", confRoot, `{"data":{"k":"v"}}`},
	{"write cas 0 over an existing secret", func(s store) { s.Put("secret", "a", map[string]any{"k": "v"}) }, "PUT", "secret/data/a", confRoot, `{"data":{"k":"w"},"options":{"cas":0}}`},
	{"write cas 1 over version 1", func(s store) { s.Put("secret", "a", map[string]any{"k": "v"}) }, "PUT", "secret/data/a", confRoot, `{"data":{"k":"w"},"options":{"cas":1}}`},
	{"write cas 1 over a soft-deleted version 1", func(s store) {
		s.Put("secret", "a", map[string]any{"k": "v"})
		s.SoftDelete("secret", "a")
	}, "PUT", "secret/data/a", confRoot, `{"data":{"k":"w"},"options":{"cas":1}}`},
	{"write by a read-only token", func(s store) { s.AddReader(confReader) }, "PUT", "secret/data/a", confReader, `{"data":{"k":"v"}}`},
	{"AppRole login", func(s store) { s.AddRole("role-1", "sec-1") }, "PUT", "auth/approle/login", "", `{"role_id":"role-1","secret_id":"sec-1"}`},
	{"AppRole login with a wrong secret id", func(s store) { s.AddRole("role-1", "sec-1") }, "PUT", "auth/approle/login", "", `{"role_id":"role-1","secret_id":"wrong"}`},
}

// TestFakeAnswersAsVault sends each exchange to the fake and to a real
// Vault dev server and compares what site reads of the answers: where
// they differ, the fake is wrong.
func TestFakeAnswersAsVault(t *testing.T) {
	for _, ex := range exchanges {
		t.Run(ex.name, func(t *testing.T) {
			fake := New(confRoot)
			defer fake.Close()
			dev := StartDev(t, confRoot)
			got := ask(t, fake, fake.URL, ex)
			want := ask(t, dev, dev.URL, ex)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fake answers\n  %+v\nreal Vault answers\n  %+v", got, want)
			}
		})
	}
}

func ask(t *testing.T, s store, base string, ex exchange) answer {
	t.Helper()
	if ex.setup != nil {
		ex.setup(s)
	}
	req, err := http.NewRequest(ex.method, base+"/v1/"+ex.path, strings.NewReader(ex.body))
	if err != nil {
		t.Fatal(err)
	}
	if ex.token != "" {
		req.Header.Set("X-Vault-Token", ex.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return parse(t, resp, b)
}

// uuidish hides the request-specific parts of error texts.
var uuidish = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f-]{27}`)

func parse(t *testing.T, resp *http.Response, b []byte) answer {
	a := answer{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
	var body struct {
		Errors []string                   `json:"errors"`
		Data   map[string]json.RawMessage `json:"data"`
		Auth   *struct {
			ClientToken string `json:"client_token"`
		} `json:"auth"`
	}
	if err := json.Unmarshal(b, &body); err != nil && len(bytes.TrimSpace(b)) > 0 {
		t.Fatalf("answer is not JSON: %v: %s", err, b)
	}
	for _, e := range body.Errors {
		a.Errors = append(a.Errors, uuidish.ReplaceAllString(e, "ID"))
	}
	a.DataKeys = keys(body.Data)
	a.AuthToken = body.Auth != nil && body.Auth.ClientToken != ""
	a.DataData = "absent"
	if raw, ok := body.Data["data"]; ok {
		a.DataData = "object"
		if string(raw) == "null" {
			a.DataData = "null"
		}
	}
	meta := body.Data
	if raw, ok := body.Data["metadata"]; ok {
		meta = nil
		_ = json.Unmarshal(raw, &meta)
	}
	if _, ok := body.Data["data"]; ok || body.Data["metadata"] != nil {
		a.MetaKeys = keys(meta)
		a.Deleted = len(meta["deletion_time"]) > 2 // not ""
		a.Destroyed = string(meta["destroyed"]) == "true"
	} else if body.Data != nil && body.Auth == nil {
		a.MetaKeys = keys(meta) // a write's answer is the version's metadata
	}
	return a
}

func keys[V any](m map[string]V) []string {
	if m == nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

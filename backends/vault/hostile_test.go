package vault

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
)

// TestHostileErrorTextIsOneLine: a store's address may be a name a
// tenant's records point (README, Trust model), so its answers are the
// tenant's to write. The errors a Vault answers with are quoted in
// what site prints (a note, the reason a step is blocked) escaped on
// one line and shortened: never a line of their own (::error:: in a
// workflow log), an escape sequence for the terminal, or megabytes.
func TestHostileErrorTextIsOneLine(t *testing.T) {
	forged := "denied\n::error::forged\x1b[2J\u202e"
	for _, tc := range []struct {
		name   string
		status int
		errors []string
	}{
		{"server trouble, passed over", http.StatusInternalServerError, []string{forged}},
		{"bad request, final", http.StatusBadRequest, []string{forged}},
		{"multi-error text", http.StatusInternalServerError, []string{"2 errors occurred:\n\t* " + forged + "\n\t* again\x1b[2J\n\n"}},
		{"half a megabyte", http.StatusInternalServerError, []string{strings.Repeat("x", 512<<10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_ = json.NewEncoder(w).Encode(map[string]any{"errors": tc.errors})
			}))
			t.Cleanup(hostile.Close)
			srv := newVault(t)
			step := secretStep(hostile.URL, srv.URL)
			run := newRun(map[string]string{"VAULT_TOKEN": testToken})
			var shown []string
			sp, err := New().Plan(context.Background(), step, run)
			if err != nil {
				shown = append(shown, err.Error())
			} else {
				res, err := New().Apply(context.Background(), sp, run)
				if err != nil {
					shown = append(shown, err.Error())
				} else {
					shown = append(shown, res.Notes...)
				}
				shown = append(shown, sp.Notes...)
			}
			text := strings.Join(shown, " | ")
			if !strings.Contains(text, "denied") && !strings.Contains(text, "xxx") {
				t.Fatalf("what site shows (%q) does not quote the store's error", text)
			}
			if i := strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }); i >= 0 {
				t.Errorf("%q holds %q, which site prints as it is", text, text[i:i+1])
			}
			if len(text) > 4000 {
				t.Errorf("what site shows is %d bytes, want the store's error shortened", len(text))
			}
		})
	}
}

// TestHugeAnswerIsCut: an address that answers a read with an endless
// secret (a store at a tenant's name can) is read no further than a
// secret or an error could be long, rather than into the runner's
// memory until the 5 s timeout; the read moves on to the next address.
func TestHugeAnswerIsCut(t *testing.T) {
	const stream = 1 << 30
	var written atomic.Int64
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("x", 64<<10))
		n, _ := w.Write([]byte(`{"data": {"data": {"token": "`))
		written.Add(int64(n))
		for written.Load() < stream {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(hostile.Close)
	srv := newVault(t)
	step := secretStep(hostile.URL, srv.URL)
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	sp, err := New().Plan(context.Background(), step, run)
	if err != nil {
		t.Fatalf("got %v, want the second address read", err)
	}
	if got := readSecret(t, run, step); got != testValue {
		t.Errorf("the secret was not read from the second address")
	}
	hostile.CloseClientConnections()
	if n := written.Load(); n > 64<<20 {
		t.Errorf("site took %d MiB of the answer, want it cut at what a secret can be", n>>20)
	}
	res, err := New().Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "larger than") {
		t.Errorf("notes %q do not say why the first address was passed over", notes)
	}
}

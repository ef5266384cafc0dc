package backends

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestCapAnswersCutsPastTheBound: an answer of up to limit bytes reads
// whole; one byte more, or a body that does not end, fails at the bound
// with an error that names whom, the URL asked (not its query), the
// bound and what to check.
func TestCapAnswersCutsPastTheBound(t *testing.T) {
	const limit = 64 << 10
	// endless stands for a body that does not end: the server writes
	// until the client stops reading (or 64 MiB, should it never stop).
	const endless = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		chunk := []byte(strings.Repeat("x", 4<<10))
		for written := 0; (n == endless && written < 64<<20) || written < n; written += len(chunk) {
			if n != endless && n-written < len(chunk) {
				chunk = chunk[:n-written]
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	hc := &http.Client{Transport: CapAnswers(http.DefaultTransport, limit, "test server", "check the url")}

	tests := []struct {
		name  string
		size  int
		whole bool
	}{
		{"empty", 0, true},
		{"one byte short of the bound", limit - 1, true},
		{"exactly the bound", limit, true},
		{"one byte past the bound", limit + 1, false},
		{"without end", endless, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := hc.Get(srv.URL + "/api/zones/a.?n=" + strconv.Itoa(tt.size))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if len(body) > limit {
				t.Errorf("read %d bytes, want at most the bound, %d", len(body), limit)
			}
			if tt.whole {
				if err != nil || len(body) != tt.size {
					t.Errorf("read %d bytes and %v, want all %d and no error", len(body), err, tt.size)
				}
				return
			}
			var tooLarge *AnswerTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("got %v, want an *AnswerTooLargeError", err)
			}
			for _, want := range []string{"test server answered GET " + srv.URL + "/api/zones/a. with", "more than 64 KiB", ": check the url"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "n=") {
				t.Errorf("error %q quotes the query string", err)
			}
			if _, again := resp.Body.Read(make([]byte, 1)); !errors.As(again, &tooLarge) {
				t.Errorf("a read after the cut got %v, want the same error again", again)
			}
		})
	}
}

func TestSizeText(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{1 << 30, "1 GiB"},
		{3 << 30, "3 GiB"},
		{1 << 20, "1 MiB"},
		{1536 << 20, "1536 MiB"},
		{64 << 10, "64 KiB"},
		{1000, "1000 bytes"},
	}
	for _, tt := range tests {
		if got := sizeText(tt.n); got != tt.want {
			t.Errorf("sizeText(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// TestCappedBodyTakesAnAnswerOfExactlyTheBound: a body whose end comes
// by itself, after its last byte (as a chunked answer's may), is whole
// at exactly the bound; only a byte past it is too many.
func TestCappedBodyTakesAnAnswerOfExactlyTheBound(t *testing.T) {
	const limit = 10
	tests := []struct {
		size  int
		whole bool
	}{{limit - 1, true}, {limit, true}, {limit + 1, false}}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.size), func(t *testing.T) {
			src := io.NopCloser(strings.NewReader(strings.Repeat("x", tt.size))) // io.EOF after the last byte, not with it
			b := &cappedBody{ReadCloser: src, left: limit, tooLarge: &AnswerTooLargeError{Limit: limit}}
			got, err := io.ReadAll(b)
			if tt.whole && (err != nil || len(got) != tt.size) {
				t.Errorf("read %d bytes and %v, want all %d and no error", len(got), err, tt.size)
			}
			if !tt.whole && (err == nil || len(got) > limit) {
				t.Errorf("read %d bytes and %v, want at most %d and the bound's error", len(got), err, limit)
			}
		})
	}
}

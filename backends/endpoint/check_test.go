package endpoint

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		raw       string
		plaintext bool
		want      error  // nil: accepted
		bad       string // for other refusals, a part of the message
	}{
		{raw: "https://pdns.example.net:8081"},
		{raw: "https://[2001:db8::1]:8200/"},
		{raw: "http://127.0.0.1:8081"},
		{raw: "http://127.9.9.9:8081"},
		{raw: "http://[::1]:8200"},
		{raw: "http://LOCALHOST:8200"},
		{raw: "http://[::ffff:127.0.0.1]:8200"},
		{raw: "http://10.77.0.13:8200", want: ErrPlaintext},
		{raw: "http://localhost.example.net", want: ErrPlaintext},
		{raw: "http://128.0.0.1", want: ErrPlaintext},
		{raw: "http://10.77.0.13:8200", plaintext: true},
		{raw: "https://alice:hunter2@vault.example.net", want: ErrUserinfo},
		{raw: "http://hunter2@127.0.0.1:8200", want: ErrUserinfo},
		{raw: "http://alice:hunter2@127.0.0.1:8200", plaintext: true, want: ErrUserinfo},
		{raw: "ftp://vault.example.net", bad: "not an http:// or https:// URL"},
		{raw: "https://", bad: "not an http:// or https:// URL"},
		{raw: "vault.example.net:8200", bad: "not an http:// or https:// URL"},
		// Does not parse: the password must not leak through url.Parse's error.
		{raw: "https://alice:hunter2@vault.example.net/%zz", bad: "not an http:// or https:// URL"},
		{raw: "alice:hunter2@vault.example.net", bad: "not an http:// or https:// URL"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			u, err := Check(tt.raw, tt.plaintext)
			switch {
			case tt.want == nil && tt.bad == "":
				if err != nil || u == nil {
					t.Fatalf("got %v, want accepted", err)
				}
				return
			case err == nil:
				t.Fatalf("got accepted, want refused")
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Errorf("got %v, want %v", err, tt.want)
			case !strings.Contains(err.Error(), tt.bad):
				t.Errorf("got %q, want it to say %q", err, tt.bad)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "alice") {
				t.Errorf("got %q, which repeats the URL's user name or password", err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"https://vault.example.net/x@y", "https://vault.example.net/x@y"},
		{"https://u:p@vault.example.net/x", "https://vault.example.net/x"},
		{"https://u:p@w@vault.example.net?q=1", "https://vault.example.net?q=1"},
		{"u:p@vault.example.net:8200", "vault.example.net:8200"},
		{"http://[::1]:80", "http://[::1]:80"},
	}
	for _, tt := range tests {
		if got := redact(tt.raw); got != tt.want {
			t.Errorf("redact(%q): got %q, want %q", tt.raw, got, tt.want)
		}
	}
}

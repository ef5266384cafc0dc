package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/vault/api"
)

// TestDescribe pins the few words each failure gets in the list of
// addresses tried, and whether it counts as an answer. The errors are
// built the way net/http and vault/api wrap them, so no name is looked
// up and no address outside loopback is dialled.
func TestDescribe(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("error encountered while reading secret at secret/data/x: %w",
			&url.Error{Op: "Get", URL: "https://keys.sjc.example.net/v1/secret/data/x", Err: err})
	}
	tests := []struct {
		name     string
		err      error
		want     string
		answered bool
	}{
		{"unresolvable name", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "keys.sjc.example.net", IsNotFound: true}}),
			"name does not resolve (no such host)", false},
		{"closed port", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}),
			"connect: connection refused", false},
		{"timeout", wrap(context.DeadlineExceeded), "no answer within 5s", false},
		{"sealed", &api.ResponseError{StatusCode: 503, Errors: []string{"Vault is sealed"}},
			`sealed (HTTP 503 "Vault is sealed"): unseal it (bao/vault operator unseal)`, true},
		{"forbidden", &api.ResponseError{StatusCode: 403, Errors: []string{"permission denied"}}, "HTTP 403: permission denied", true},
		// Vault 1.21's own texts, as a dev server answers them.
		{"forbidden by policy", &api.ResponseError{StatusCode: 403, Errors: []string{"1 error occurred:\n\t* permission denied\n\n"}},
			"HTTP 403: permission denied", true},
		{"unknown token", &api.ResponseError{StatusCode: 403, Errors: []string{"2 errors occurred:\n\t* permission denied\n\t* invalid token\n\n"}},
			"HTTP 403: permission denied; invalid token", true},
		{"not found", fmt.Errorf("%w: at secret/data/x", api.ErrSecretNotFound), "secret not found (HTTP 404)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, answered := describe(tt.err, 5*time.Second)
			if got != tt.want || answered != tt.answered {
				t.Errorf("got %q, answered %v; want %q, %v", got, answered, tt.want, tt.answered)
			}
		})
	}
	if !errors.Is(wrap(context.DeadlineExceeded), context.DeadlineExceeded) {
		t.Fatal("test setup: the wrapped deadline is not visible")
	}
}

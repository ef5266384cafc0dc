package vault

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

// How a reader authenticates: the client of one address, the token or
// AppRole credentials, and the AppRole login.

// client builds a client for one address: one attempt, no retries (the
// library's default retries a refused connection for seconds, which
// would delay the fallback to the next address), short timeout.
//
// The config is built by hand, not from api.DefaultConfig: that reads
// VAULT_SKIP_VERIFY, VAULT_AGENT_ADDR and the like from the process
// environment, where httpClient decides TLS itself. DisableRedirects
// stops the library's own redirect following (one redirect, to any
// host, token included); r.http follows same-origin ones only.
//
// Each request is named to the run while it waits for its answer
// (backends.Run.Await), as "Vault STORE (address)" and its method and
// API path: the token is in a header, never in the name.
func (r *reader) client(addr string) (*api.Client, error) {
	hc := *r.http
	hc.Transport = backends.AwaitTransport(r.http.Transport, r.run, "Vault "+r.sec.Store.Name+" ("+addr+")", apiRequest)
	c, err := api.NewClient(&api.Config{Address: addr, HttpClient: &hc, MaxRetries: 0,
		Timeout: r.timeout, DisableRedirects: true})
	if err != nil {
		return nil, err
	}
	// NewClient picks VAULT_TOKEN from the process environment; site
	// decides the token itself, from the spec.
	c.ClearToken()
	if r.token != "" {
		c.SetToken(r.token)
	}
	return c, nil
}

// apiRequest names a request by its method and its path below /v1/:
// "GET secret/data/dns/cloudflare".
func apiRequest(req *http.Request) string {
	return req.Method + " " + strings.TrimPrefix(req.URL.Path, "/v1/")
}

// credentials resolves the token, or the AppRole's role and secret ids.
func (r *reader) credentials() error {
	var err error
	if ar := r.sec.Store.AppRole; ar != nil {
		if r.roleID, err = runstate.Credentials(r.run).Credential(r.run.Getenv, ar.RoleID); err != nil {
			return fmt.Errorf("AppRole role_id for vault %s: %w", r.sec.Store.Name, err)
		}
		if r.secretID, err = runstate.Credentials(r.run).Credential(r.run.Getenv, ar.SecretID); err != nil {
			return fmt.Errorf("AppRole secret_id for vault %s: %w", r.sec.Store.Name, err)
		}
		return nil
	}
	if r.token, err = runstate.Credentials(r.run).Credential(r.run.Getenv, r.tokenCred()); err != nil {
		return fmt.Errorf("token for vault %s: %w", r.sec.Store.Name, err)
	}
	return nil
}

func (r *reader) tokenCred() model.Credential {
	c := r.sec.Store.Token
	if c.Env == "" && c.Vault == nil {
		c.Env = "VAULT_TOKEN"
	}
	return c
}

func (r *reader) tokenSource() string {
	if r.sec.Store.AppRole != nil {
		return "the AppRole login"
	}
	if c := r.tokenCred(); c.Env != "" {
		return "$" + c.Env
	}
	return "the configured token"
}

// login exchanges the AppRole credentials for a token when the store
// declares an AppRole, once per run and store: the run's later reads
// and its lock use the token the first login got (see memory).
func (r *reader) login(ctx context.Context, c *api.Client) error {
	ar := r.sec.Store.AppRole
	if ar == nil {
		return nil
	}
	if r.mem != nil && r.mem.loginToken != "" {
		c.SetToken(r.mem.loginToken)
		r.loginToken = r.mem.loginToken
		return nil
	}
	s, err := c.Logical().WriteWithContext(ctx, "auth/"+r.appRoleMount()+"/login",
		map[string]any{"role_id": r.roleID, "secret_id": r.secretID})
	if err != nil {
		return err
	}
	if s == nil || s.Auth == nil || s.Auth.ClientToken == "" {
		return errors.New("AppRole login answered without a client token")
	}
	c.SetToken(s.Auth.ClientToken)
	r.loginToken = s.Auth.ClientToken
	if r.mem != nil {
		r.mem.loginToken = s.Auth.ClientToken
	}
	return nil
}

// scrub hides the AppRole login token in text taken from an answer.
func (r *reader) scrub(s string) string {
	if r.loginToken == "" {
		return s
	}
	return strings.ReplaceAll(s, r.loginToken, "[redacted]")
}

// appRoleMount is where the store's AppRole is mounted.
func (r *reader) appRoleMount() string {
	if ar := r.sec.Store.AppRole; ar != nil && ar.Mount != "" {
		return ar.Mount
	}
	return "approle"
}

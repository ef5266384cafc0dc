package vault

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/hashicorp/vault/api"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
)

// readAt makes one attempt at addr. It returns the secret, or the attempt
// and, when the answer is final, the error to report.
func (r *reader) readAt(ctx context.Context, addr, what string) (*secret, attempt, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	att := attempt{addr: addr}
	client, err := r.client(addr)
	if err != nil {
		// A malformed address is reported with the others: a later one
		// may still answer.
		att.reason = "unusable address: " + err.Error()
		return nil, att, nil
	}
	if err := r.login(ctx, client); err != nil {
		final := r.loginFailure(&att, err)
		return nil, att, final
	}
	kv, err := client.KVv2(r.mount()).Get(ctx, r.sec.Ref.Path)
	if err != nil {
		final := r.getFailure(&att, err, what)
		return nil, att, final
	}
	return r.value(kv, att, what)
}

// loginFailure records why the AppRole login at att.addr failed, and
// returns the error to report when that is final: a TLS failure, or a
// refusal that is not the server's own trouble.
func (r *reader) loginFailure(att *attempt, err error) error {
	if final := tlsFailure(att, err); final != nil {
		return final
	}
	att.reason, att.answered = describe(err, r.timeout)
	if !att.answered || isServerTrouble(err) {
		return nil
	}
	ar := r.sec.Store.AppRole
	h := hint.Hint{Kind: hint.NewSecretID, Command: "vault write -f auth/" + r.appRoleMount() + "/role/ROLE/secret-id",
		Setting: credName(ar.SecretID), Spec: credName(ar.RoleID)}
	return hint.Errorf(h, "AppRole login at %s (mount %s) failed: %s", att.addr, r.appRoleMount(), att.reason)
}

// refAt says where site.cue writes the secret's reference: "at
// FILE:LINE:COL", or "in site.cue" when the step was built without it.
func (r *reader) refAt() string {
	p := r.sec.Ref.Pos
	if !p.IsValid() {
		return "in site.cue"
	}
	return fmt.Sprintf("at %s:%d:%d", p.File, p.Line, p.Col)
}

// credName names where a credential comes from, never its value.
func credName(c model.Credential) string {
	if c.Env != "" {
		return "$" + c.Env
	}
	return "its credential"
}

// failed records why the request to att.addr failed, without any token,
// and returns the TLS failure that ends the walk over the addresses, if
// it was one.
func (r *reader) failed(att *attempt, err error) error {
	if final := tlsFailure(att, err); final != nil {
		return final
	}
	att.reason, att.answered = describe(err, r.timeout)
	att.reason = r.scrub(att.reason)
	var re *api.ResponseError
	if errors.As(err, &re) {
		att.status = re.StatusCode
	}
	return nil
}

// getFailure records why reading the secret at att.addr failed, and
// returns the error to report when the answer is about the secret
// itself and so final.
func (r *reader) getFailure(att *attempt, err error, what string) error {
	addr := att.addr
	if final := r.failed(att, err); final != nil {
		return final
	}
	var re *api.ResponseError
	switch {
	case !att.answered, isServerTrouble(err):
		return nil
	case errors.Is(err, api.ErrSecretNotFound):
		h := hint.Hint{Kind: hint.WriteSecret, Command: fmt.Sprintf("vault kv put -mount=%s %s %s=...", r.mount(), r.sec.Ref.Path, r.sec.Ref.Key), Spec: r.refAt()}
		return hint.Errorf(h, "secret %s does not exist at %s", what, addr)
	case errors.As(err, &re) && re.StatusCode == http.StatusForbidden && invalidToken(re):
		h := hint.Hint{Kind: hint.RenewToken, Setting: r.tokenSource()}
		if r.sec.Store.AppRole != nil {
			h.Setting = ""
		}
		return hint.Errorf(h, "permission denied reading secret %s at %s: Vault does not accept the token in %s (\"invalid token\": it expired, was revoked, or belongs to another Vault)",
			what, addr, r.tokenSource())
	case errors.As(err, &re) && re.StatusCode == http.StatusForbidden:
		h := hint.Hint{Kind: hint.GrantToken, Setting: r.tokenSource(), Spec: "read on " + r.mount() + "/data/" + r.sec.Ref.Path}
		return hint.Errorf(h, "permission denied reading secret %s at %s: the token in %s has no policy that allows read on %s/data/%s",
			what, addr, r.tokenSource(), r.mount(), r.sec.Ref.Path)
	default:
		return fmt.Errorf("reading secret %s at %s: %s", what, addr, att.reason)
	}
}

// value takes the referenced key out of the store's answer. A deleted
// latest version, a missing key or a value that is not a non-empty
// string is final.
func (r *reader) value(kv *api.KVSecret, att attempt, what string) (*secret, attempt, error) {
	addr := att.addr
	if kv.Data == nil {
		att.answered = true
		att.reason = "latest version is deleted"
		v := 0
		if kv.VersionMetadata != nil {
			v = kv.VersionMetadata.Version
		}
		if kv.VersionMetadata != nil && kv.VersionMetadata.Destroyed {
			// Undelete cannot bring a destroyed version back.
			att.reason = "latest version is destroyed"
			h := hint.Hint{Kind: hint.WriteSecret, Command: fmt.Sprintf("vault kv put -mount=%s %s %s=...", r.mount(), r.sec.Ref.Path, r.sec.Ref.Key)}
			return nil, att, hint.Errorf(h, "secret %s at %s: its latest version (%d) is destroyed", what, addr, v)
		}
		h := hint.Hint{Kind: hint.ByHand, Spec: "write a new version", Command: fmt.Sprintf("vault kv undelete -mount=%s -versions=%d %s", r.mount(), v, r.sec.Ref.Path)}
		return nil, att, hint.Errorf(h, "secret %s at %s: its latest version (%d) is deleted", what, addr, v)
	}
	raw, ok := kv.Data[r.sec.Ref.Key]
	if !ok {
		keys := make([]string, 0, len(kv.Data))
		for k := range kv.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		att.answered, att.reason = true, "no such key"
		return nil, att, fmt.Errorf("secret %s at %s has no key %q (its keys: %s): add the key or fix the reference %s",
			what, addr, r.sec.Ref.Key, strings.Join(keys, ", "), r.refAt())
	}
	val, ok := raw.(string)
	if !ok || val == "" {
		att.answered, att.reason = true, "key is not a non-empty string"
		// The type is safe to name; the value is not printed.
		return nil, att, fmt.Errorf("secret %s at %s: key %q holds a %T, not a non-empty string: store the token as a string",
			what, addr, r.sec.Ref.Key, raw)
	}
	out := &secret{addr: addr, value: val}
	if kv.VersionMetadata != nil {
		out.version, out.created = kv.VersionMetadata.Version, kv.VersionMetadata.CreatedTime
	}
	return out, att, nil
}

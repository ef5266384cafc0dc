package vaulttest

import (
	"context"
	"fmt"

	"github.com/hashicorp/vault/api"
)

// What a test does to a real dev server, with the root token and
// straight to its listener (not counted); each failure fails the test.

// rwPolicy is the policy of the tokens AddRole's logins get: read and
// write any KV v2 secret.
const rwPolicy = `path "+/data/*" { capabilities = ["create", "read", "update"] }`

// readPolicy grants read but not create or update (AddReader).
const readPolicy = `path "+/data/*" { capabilities = ["read"] }`

func (d *Dev) kv(mount string) *api.KVv2 { return d.client.KVv2(mount) }

func (d *Dev) fatal(doing string, err error) {
	d.t.Helper()
	d.t.Fatalf("vault dev server: %s: %v", doing, err)
}

// Put writes a new version of the KV v2 secret at mount/path.
func (d *Dev) Put(mount, path string, data map[string]any) {
	d.t.Helper()
	if _, err := d.kv(mount).Put(context.Background(), path, data); err != nil {
		d.fatal("put "+mount+"/"+path, err)
	}
}

// Latest returns the data of the latest version of mount/path and its
// number (nil and 0 when there is none; nil data when it is deleted).
func (d *Dev) Latest(mount, path string) (map[string]any, int) {
	d.t.Helper()
	m, err := d.kv(mount).GetMetadata(context.Background(), path)
	if err != nil {
		return nil, 0
	}
	s, err := d.kv(mount).GetVersion(context.Background(), path, m.CurrentVersion)
	if err != nil {
		return nil, m.CurrentVersion
	}
	return s.Data, m.CurrentVersion
}

// SoftDelete deletes the latest version of mount/path, as `vault kv
// delete` does: its metadata stays readable, its data does not, and
// `vault kv undelete` brings it back.
func (d *Dev) SoftDelete(mount, path string) {
	d.t.Helper()
	if err := d.kv(mount).Delete(context.Background(), path); err != nil {
		d.fatal("delete "+mount+"/"+path, err)
	}
}

// Destroy destroys the latest version of mount/path for good, as `vault
// kv destroy -versions=N` does.
func (d *Dev) Destroy(mount, path string) {
	d.t.Helper()
	m, err := d.kv(mount).GetMetadata(context.Background(), path)
	if err != nil {
		d.fatal("read the metadata of "+mount+"/"+path, err)
	}
	if err := d.kv(mount).Destroy(context.Background(), path, []int{m.CurrentVersion}); err != nil {
		d.fatal("destroy "+mount+"/"+path, err)
	}
}

// Seal seals the server (every request but health then answers 503) or
// unseals it with the dev server's unseal key.
func (d *Dev) Seal(sealed bool) {
	d.t.Helper()
	if sealed {
		if err := d.client.Sys().Seal(); err != nil {
			d.fatal("seal", err)
		}
		return
	}
	if _, err := d.client.Sys().Unseal(d.unsealKey); err != nil {
		d.fatal("unseal", err)
	}
}

// AddReader adds a token whose policy grants read but not create or
// update on KV v2 secrets: its writes get 403.
func (d *Dev) AddReader(token string) {
	d.t.Helper()
	d.AddToken(token, "vaulttest-read", readPolicy)
}

// AddToken creates a token with the given id whose only policy (besides
// Vault's default) is rules, stored under the name policy.
func (d *Dev) AddToken(token, policy, rules string) {
	d.t.Helper()
	if err := d.client.Sys().PutPolicy(policy, rules); err != nil {
		d.fatal("write policy "+policy, err)
	}
	_, err := d.client.Auth().Token().Create(&api.TokenCreateRequest{ID: token, Policies: []string{policy}})
	if err != nil {
		d.fatal("create a token with policy "+policy, err)
	}
}

// AddRole lets AppRole logins (at auth/approle) with roleID and secretID
// succeed; the token a login gets reads and writes KV v2 secrets.
func (d *Dev) AddRole(roleID, secretID string) {
	d.t.Helper()
	auths, err := d.client.Sys().ListAuth()
	if err != nil {
		d.fatal("list auth methods", err)
	}
	if _, ok := auths["approle/"]; !ok {
		if err := d.client.Sys().EnableAuthWithOptions("approle", &api.EnableAuthOptions{Type: "approle"}); err != nil {
			d.fatal("enable AppRole", err)
		}
	}
	if err := d.client.Sys().PutPolicy("vaulttest-rw", rwPolicy); err != nil {
		d.fatal("write policy vaulttest-rw", err)
	}
	role := "auth/approle/role/" + roleID
	for _, w := range []struct {
		path string
		data map[string]any
	}{
		{role, map[string]any{"token_policies": []string{"vaulttest-rw"}, "token_ttl": "10m"}},
		{role + "/role-id", map[string]any{"role_id": roleID}},
		{role + "/custom-secret-id", map[string]any{"secret_id": secretID}},
	} {
		if _, err := d.client.Logical().Write(w.path, w.data); err != nil {
			d.fatal(fmt.Sprintf("write %s", w.path), err)
		}
	}
}

package main

import (
	"github.com/site-tools/site/backends/vault"
	"github.com/site-tools/site/compiler/graph"
)

func init() {
	kindDrivers[graph.KindSecret] = vault.New()
	backendNames["vault"] = "Vault/OpenBao KV v2 secrets (hashicorp/vault/api v1.23.0); addrs in order, then VAULT_ADDR; SITE_VAULT_ADDRS replaces addrs"
}

// Package vaulttest gives tests a Vault to talk to.
//
// StartDev (dev.go) starts a REAL Vault, `vault server -dev` of the
// release named by Version, on a free loopback port, one per test, and
// stops it when the test ends. It is built from the Go module proxy by
// `make vault-server` (the module in vaultserver/) into a cache outside
// the repository; SITE_TEST_VAULT_BIN names another binary. Vault 1.21 is
// BSL 1.1 licensed: it is a test server only, never shipped with site.
// Without the binary a test skips with the make hint, or fails under
// CI=true. Its helpers (devstore.go) put, delete and destroy secrets,
// seal and unseal, and make tokens with policies and AppRole roles.
//
// There is no fake Vault any more: what a dev server cannot show (a TLS
// failure, a redirect, a token echoed in an error, a 404 page that is
// not a Vault, a silent address) the tests build as small servers in
// front of or beside the real one.
package vaulttest

// Command vaultserver is the real HashiCorp Vault server and CLI, built only
// so that site's tests can start `vault server -dev` and talk to a real Vault
// instead of the project's own fake.
//
// It is a TEST SERVER ONLY. Vault 1.21 is licensed under the Business Source
// License 1.1: this binary is built into a cache outside the repository
// (`make vault-server`) and must never be shipped with site, packaged or
// vendored. It lives in its own module so that site's go.mod and go.sum do not
// carry Vault's ~3,000 dependency lines, and so that `go build ./...` in the
// root module never builds it. Vault's own main module cannot be `go install`ed
// because it carries replace directives; as a dependency those do not apply.
package main

import (
	"os"

	"github.com/hashicorp/vault/command"
)

func main() {
	os.Exit(command.Run(os.Args[1:]))
}

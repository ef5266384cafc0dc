package manual

import (
	"fmt"
	"strings"
)

// Variable is one environment variable site or its test helpers read.
type Variable struct {
	Name string
	// Reader is the package that reads it, from the repository's top.
	Reader string
	// Test marks a variable only the tests and their helpers read.
	Test bool
	Doc  string
}

// Variables is every environment variable site reads, and the
// "environment" topic is written from it. A test in cmd/site finds every
// Getenv and LookupEnv in the code and fails on one this list lacks, and
// on an entry no code names, so the two cannot drift. Credentials a
// spec names ({env: "NAME"} in site.cue) are the operator's own names
// and so are not listed, except the defaults site itself writes.
var Variables = []Variable{
	{"NO_COLOR", "cmd/site", false, "Set to anything: no ANSI colours, even on a terminal (https://no-color.org)."},
	{"SITE_CACHE_DIR", "compiler", false, "Where vet, diff, apply and graph keep the evaluation cache; else `site` in the user's cache directory. `--no-cache` skips it."},
	{"VAULT_TOKEN", "backends/vault", false, "The token of a vault that names neither a `token` nor an `approle` in site.cue (the schema's default)."},
	{"VAULT_ADDR", "backends/vault", false, "Tried after a vault's `addrs` in site.cue, once, with the same short timeout."},
	{"SITE_VAULT_ADDRS", "backends/vault", false, "Comma-separated addresses that replace every vault's `addrs` (tests, or a runner that reaches the stores by other names)."},
	{"VAULT_CACERT", "backends/vault", false, "CA file that signed the store's certificate, when it is not in the system roots."},
	{"VAULT_CACERT_BYTES", "backends/vault", false, "The same CA, as PEM text."},
	{"VAULT_CAPATH", "backends/vault", false, "A directory of CA files."},
	{"VAULT_CLIENT_CERT", "backends/vault", false, "Client certificate for a store that asks for one (with VAULT_CLIENT_KEY)."},
	{"VAULT_CLIENT_KEY", "backends/vault", false, "The client certificate's key."},
	{"VAULT_TLS_SERVER_NAME", "backends/vault", false, "The name to verify the store's certificate against."},
	{"VAULT_SKIP_VERIFY", "backends/vault", false, "Refused: site always verifies certificates, and says so rather than ignoring it."},
	{"PDNS_API_KEY", "cmd/site", false, "The PowerDNS API key site init writes into site.cue (`api_key: env: \"PDNS_API_KEY\"`), and the default of `--api-key-env` (export, disown)."},
	{"SITE_PDNS_DNS_ADDR", "backends/powerdns", false, "host:port where apply verifies PowerDNS's answers over DNS, or `off`; used when the provider in site.cue has no `dns`; else the API host on port 53."},
	{"CLOUDFLARE_API_TOKEN", "cmd/site", false, "The default of `--token-env` (site export cloudflare, site disown cloudflare)."},
	{"SITE_CLOUDFLARE_API_URL", "backends/cloudflare", false, "Replaces the Cloudflare API URL (a provider's `api_url`); the tests point it at the fake."},
	{"SITE_CLOUDFLARE_BATCH_SIZE", "backends/cloudflare", false, "Operations per batch write, 1 to 3,500; 200 by default (the Free plan's limit)."},
	{"SITE_LIBVIRT_URI_MAP", "backends/libvirt", false, "`FROM=TO,...`: connect to TO where site.cue says FROM (a test daemon's socket, an ssh tunnel)."},
	{"SITE_LIBVIRT_SHUTDOWN_TIMEOUT", "backends/libvirt", false, "How long a guest gets to shut down before it is forced off; 2m by default, 0s forces at once."},
	{"SITE_LIBVIRT_DOMAIN_TYPE", "backends/libvirt", false, "`kvm` or `qemu`: the domain type of new guests; unset, kvm where the host offers it."},
	{"XDG_STATE_HOME", "backends/lock", false, "Where apply locks live when site.cue names no `locks` store: `$XDG_STATE_HOME/site/locks`, else `~/.local/state/site/locks`."},
	{"SITE_TEST_VAULT_BIN", "backends/vault/vaulttest", true, "The Vault binary the tests start; else the one make vault-server builds into the user's cache."},
	{"XDG_CACHE_HOME", "backends/vault/vaulttest", true, "Where the tests look for that cached Vault binary."},
	{"CI", "backends/vault/vaulttest", true, "`true`: a test whose real server (PowerDNS, Vault, libvirt) is missing fails instead of skipping."},
	{"CFTEST_TOKEN", "backends/cloudflare/cftest", true, "The token the Cloudflare fake's server (cfserver) accepts, read from the environment so no process listing shows it."},
}

// EnvironmentTopic is the name of the topic written from Variables.
const EnvironmentTopic = "environment"

// LookupVariable returns the entry for name.
func LookupVariable(name string) (Variable, bool) {
	for _, v := range Variables {
		if v.Name == name {
			return v, true
		}
	}
	return Variable{}, false
}

// environmentTopic writes the "environment" topic from Variables.
func environmentTopic() Topic {
	var b strings.Builder
	b.WriteString("# Environment variables\n\n")
	b.WriteString("Every environment variable site reads, written from the list in its code (compiler/manual).\n")
	b.WriteString("Credentials are read from the variables site.cue names (`{env: \"NAME\"}`); those names are yours.\n")
	for _, test := range []bool{false, true} {
		if test {
			b.WriteString("\n## Read by the tests only\n")
		} else {
			b.WriteString("\n## Read by site\n")
		}
		for _, v := range Variables {
			if v.Test == test {
				fmt.Fprintf(&b, "\n- `%s` (%s): %s\n", v.Name, v.Reader, v.Doc)
			}
		}
	}
	body := b.String()
	t, _ := parse("compiler/manual/"+EnvironmentTopic+".md", body)
	t.Source = "compiler/manual/env.go"
	return t
}

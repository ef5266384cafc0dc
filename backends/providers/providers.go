// Package providers is the table of the backends built into site: what
// site version says of each, and how one run builds their drivers into
// a Set. It is the one place that names concrete backends, so the
// engine and the command stay blind to which ones a binary has.
//
// libvirt is in the table only in a build with cgo and the build tag
// libvirt_dlopen (see libvirt.go); any other build lists it as absent,
// and Set.Check turns a graph that needs it into one line that says how
// to get a build that has it.
package providers

import (
	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/vault"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/rules"
)

// Backend is one entry of the table.
type Backend struct {
	Name string
	// About describes it for site version: the API and library it talks
	// through and the environment variables it reads; for a backend this
	// build left out, why and how to get one that has it.
	About func() string
	// Open builds the backend's drivers for run into s, reading the
	// environment through run.Getenv.
	Open func(s *Set, run *backends.Run)
	// Rules is what a DNS provider serves where it takes less than DNS
	// does, declared by the provider as data (nil for a backend that
	// serves no zones); vet reads them through RecordRules.
	Rules *rules.Rules
}

// Table lists every backend, in the order site version prints them.
// Each run builds its own drivers from it (see Open), so nothing a
// backend learns outlives the run. Tests may replace an entry's Open
// (a fake's rate limit, a driver shared across runs) and put it back.
var Table = []Backend{
	{
		Name: "cloudflare",
		About: func() string {
			return "Cloudflare DNS (cloudflare-go v0.119.0); batch writes, comment owner marker; " + cloudflare.EnvAPIURL + " overrides the API URL"
		},
		Open:  func(s *Set, _ *backends.Run) { s.Providers["cloudflare"] = cloudflare.New() },
		Rules: cloudflare.Rules,
	},
	libvirtBackend,
	{
		Name: "powerdns",
		About: func() string {
			return "PowerDNS Authoritative HTTP API (go-powerdns v3.17.0); verified over DNS at " + powerdns.EnvDNSAddr + " (host:port, or off), else the API host on port 53"
		},
		Open:  func(s *Set, _ *backends.Run) { s.Providers["powerdns"] = &powerdns.Driver{} },
		Rules: powerdns.Rules,
	},
	{
		Name: "vault",
		About: func() string {
			return "Vault/OpenBao KV v2 secrets (hashicorp/vault/api v1.23.0); addrs in order, then VAULT_ADDR; SITE_VAULT_ADDRS replaces addrs"
		},
		Open: func(s *Set, _ *backends.Run) { s.Kinds[plan.PhaseSecrets] = vault.New() },
	},
}

// Open builds every backend's drivers for one run.
func Open(run *backends.Run) *Set {
	s := &Set{Kinds: map[plan.Phase]backends.Driver{}, Providers: map[string]backends.Driver{}}
	for _, b := range Table {
		b.Open(s, run)
	}
	return s
}

// RecordRules gathers the record rules of the table's DNS providers, by
// provider kind: what cmd/site gives the compiler (compiler.UseRules)
// before any spec is loaded. They are Go data in this binary, so they
// are the same for every run of it (the evaluation cache keys on them
// all the same).
func RecordRules() rules.Set {
	var rs []*rules.Rules
	for _, b := range Table {
		if b.Rules != nil {
			rs = append(rs, b.Rules)
		}
	}
	return rules.NewSet(rs...)
}

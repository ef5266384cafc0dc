package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// More tests of the contract (trust_test.go holds the first ones).

// TestTrust_SeedName: a tenant's disk, or its base, named like a
// cloud-init seed (seed-<16 hex digits>.iso) passed vet. A seed's name
// is a hash of the VM's name and cloud-init text, which the tenants'
// files show, and site uploads no seed whose volume is already there: a
// tenant that made the volume of another's seed first (a clone of its
// own seed) booted that tenant's guest from its own user-data. Seed
// names are site's alone.
func TestTrust_SeedName(t *testing.T) {
	diags := loadCase(t, "trust_seed_name")
	for path, want := range map[string]string{
		"tenants.evil.vms.plant.disks.0.name": `volume name "seed-0123456789abcdef.iso" is how site names a cloud-init seed`,
		"tenants.evil.vms.plant.disks.0.base": `volume name "seed-fedcba9876543210.iso" is how site names a cloud-init seed`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, prefix := range []string{"tenants.victim", "tenants.evil.vms.own", "tenants.evil.vms.ok"} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is the tenant's own, got errors %q", prefix, msgs)
		}
	}
	if len(diags) != 2 {
		t.Errorf("got %d diagnostics, want 2:\n%v", len(diags), diags)
	}
}

// TestTrust_OutputAmplification: diagnostics quote the value a tenant
// wrote, and a few hundred bytes of CUE make a string of megabytes (a
// doubling concatenation, within the evaluation budget): with spaces in
// it, no run was long enough to shorten, so vet printed it whole, twice
// in "got X, want a list: write [X]" and in the advice for a record
// written as {ttl, values}, for every use: megabytes of stderr and of
// pull-request annotations from a spec of a kilobyte. A quoted value is
// shortened like a long run.
func TestTrust_OutputAmplification(t *testing.T) {
	dir := t.TempDir()
	site := "package site\n\nproviders: pdns: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"PDNS_API_KEY\"}\n" +
		"tenants: evil: {domains: [\"evil.test\"], providers: [\"pdns\"]}\n"
	var b strings.Builder
	b.WriteString("package tenants\n\n_s0: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n")
	for i := 1; i <= 4; i++ {
		p := "_s" + string(rune('0'+i-1))
		b.WriteString("_s" + string(rune('0'+i)) + ": " + strings.Repeat(p+"+\" \"+", 7) + p + "\n")
	}
	b.WriteString("tenants: evil: {\n\tdomain: \"evil.test\"\n\tdns: zones: \"evil.test\": {\n\t\tprovider: \"pdns\"\n\t\trecords: {\n")
	b.WriteString("\t\t\ta: A: _s4\n\t\t\tb: A: {ttl: 60, values: [_s4], value: _s4}\n\t\t\tc: TXT: {ttl: _s4, values: [\"x\"]}\n")
	b.WriteString("\t\t}\n\t}\n}\n")
	for name, src := range map[string]string{"site.cue": site, "evil.cue": b.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "evil.cue")})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("Load: got %v, want Diagnostics", err)
	}
	out := diags.Error()
	if !strings.Contains(out, "want a list") {
		t.Fatalf("no diagnostic for the value where a list goes:\n%.2000s", out)
	}
	if limit := 16 * b.Len(); len(out) > limit {
		t.Errorf("a spec of %d bytes printed %d bytes of diagnostics, want at most %d:\n%.2000s", b.Len(), len(out), limit, out)
	}
	checkOneLineEach(t, diags)
}

// TestTrust_NetworkHoldsEndpoint: site.cue sends credentials over plain
// http to IP addresses (a store's fallback address, a PowerDNS url),
// and a tenant's network holding one of them passed vet: on the host
// the bridge's route to the prefix is narrower than the operator's LAN,
// so the runner reached the tenant's guest at that address, which took
// the credential and what it opens. A network holding such an address
// is refused at its cidr where the tenant could take what serves
// another tenant (a store holding another tenant's provider key, a
// login that is also another's credential, a provider granted to
// others); the tenant whose own store it is keeps its network.
func TestTrust_NetworkHoldsEndpoint(t *testing.T) {
	diags := loadCase(t, "trust_network_endpoint")
	for path, want := range map[string]string{
		"tenants.evil.networks.store.cidr": `network store's cidr 10.77.0.0/16 holds 10.77.0.13, where site.cue reaches vault bao over plain http (http://10.77.0.13:8200)`,
		"tenants.evil.networks.api.cidr":   `network api's cidr 10.66.0.0/30 holds 10.66.0.2, where site.cue reaches provider pdns over plain http (http://10.66.0.2:8081)`,
		"tenants.evil.networks.login.cidr": `network login's cidr 10.99.0.0/24 holds 10.99.0.5, where site.cue reaches vault ops over plain http`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	if len(diags) != 3 {
		t.Errorf("got %d diagnostics, want 3 (sjc's own store, an address over TLS and a prefix apart pass):\n%v", len(diags), diags)
	}
}

// TestTrust_NetworkSquat: a network was refused only where it overlapped
// another on its host, whichever came first, and vet took any IPv4
// prefix up to /30: tenant evil's 10.0.0.0/8 on kvm1 left no room for
// any other tenant's network there, and 0.0.0.0/1 beside 128.0.0.0/1
// none at all, while a NAT network's route to half the address space
// (or to a public prefix) took the host's own traffic to it, the
// runner's store and DNS server among it. A tenant's network lies in
// the cidrs site.cue grants it; without a grant, in private space, no
// wider than /16, and outside every other tenant's grant.
func TestTrust_NetworkSquat(t *testing.T) {
	diags := loadCase(t, "trust_network_squat")
	for path, want := range map[string]string{
		"tenants.evil.networks.slash8.cidr":    `network slash8's cidr 10.0.0.0/8 is wider than /16, and site.cue grants tenant evil no cidrs`,
		"tenants.evil.networks.low.cidr":       `network low's cidr 0.0.0.0/1 is not private address space (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16), and site.cue grants tenant evil no cidrs`,
		"tenants.evil.networks.high.cidr":      `network high's cidr 128.0.0.0/1 is not private address space`,
		"tenants.evil.networks.all.cidr":       `network all's cidr 0.0.0.0/0 is not private address space`,
		"tenants.evil.networks.public.cidr":    `network public's cidr 198.51.100.0/24 is not private address space`,
		"tenants.evil.networks.wide.cidr":      `network wide's cidr 172.16.0.0/15 is wider than /16`,
		"tenants.evil.networks.taken.cidr":     `network taken's cidr 10.77.9.0/24 lies in 10.77.0.0/16, which site.cue grants tenant victim`,
		"tenants.victim.networks.outside.cidr": `network outside's cidr 10.78.0.0/24 lies outside the cidrs site.cue grants tenant victim (10.77.0.0/16, 192.0.2.0/24)`,
		"tenants.bare.networks.own.cidr":       `network own's cidr 10.55.0.0/24 lies outside the cidrs site.cue grants tenant bare (none)`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	// Each says what the operator adds to site.cue to allow it.
	for path, want := range map[string]string{
		"tenants.evil.networks.slash8.cidr":    `tenants: evil: cidrs: ["10.0.0.0/8"]`,
		"tenants.evil.networks.all.cidr":       `tenants: evil: cidrs: ["0.0.0.0/0"]`,
		"tenants.victim.networks.outside.cidr": `add "10.78.0.0/24" to its cidrs`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	// A refused prefix takes nothing: the networks it would overlap
	// (victim's lan, evil's own) are not reported for it.
	for _, prefix := range []string{"tenants.victim.networks.lan", "tenants.victim.networks.dmz", "tenants.evil.networks.ok"} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is granted, got errors %q", prefix, msgs)
		}
	}
	if msgs := diagAt(diags, "tenants.evil.networks.slash8"); len(msgs) != 1 {
		t.Errorf("got %q, want only the refused cidr at slash8, not the networks it overlaps", msgs)
	}
	if len(diags) != 9 {
		t.Errorf("got %d diagnostics, want 9:\n%v", len(diags), diags)
	}
}

// TestTrust_CIDRGrants: address space granted to two tenants is one
// they both take networks in, so neither's is its own; site.cue refuses
// it at the later grant, naming both, as it refuses two tenants'
// overlapping domains. One tenant's grants may overlap each other.
func TestTrust_CIDRGrants(t *testing.T) {
	diags := loadCase(t, "trust_cidr_grants")
	for path, want := range map[string]string{
		"tenants.evil.cidrs.0": `cidr 10.77.128.0/17 of tenant evil overlaps cidr 10.77.0.0/16 of tenant sjc`,
		"tenants.lab.cidrs.0":  `cidr 10.90.0.128/25 of tenant lab overlaps cidr 10.90.0.0/24 of tenant sjc`,
		"tenants.typo.cidrs.0": `"10.92.0.1/24" has host bits set; write the network address "10.92.0.0/24"`,
		"tenants.typo.cidrs.1": `"fd00::/64" is not IPv4`,
		"tenants.typo.cidrs.2": `"10.93.0.0" is not a CIDR prefix`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, d := range diags {
		if strings.Contains(d.Msg, "overlaps") && len(d.Related) != 1 {
			t.Errorf("%s: got related %v, want the other tenant's grant", d.Path, d.Related)
		}
	}
	if len(diags) != 5 {
		t.Errorf("got %d diagnostics, want 5 (lab's own two grants overlap each other, which is no error):\n%v", len(diags), diags)
	}
}

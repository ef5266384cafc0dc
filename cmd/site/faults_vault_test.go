package main

import (
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/vault"
	"github.com/site-tools/site/backends/vault/vaulttest"
	"github.com/site-tools/site/compiler/plan"
)

// TestFaultsVaultApply puts the connection faults, and a sealed store,
// between site and a real Vault dev server that holds a Cloudflare zone's token
// (the fake Cloudflare answers directly), twice each. After each run
// neither secret is in the output, no foreign record changed, no wanted
// rrset is gone, the run converged (a diff then says so) or exited 1
// saying why (3 when the store did not answer: GATE-SECRET-UNREACHABLE), the store saw a bounded number of requests; then a clean
// apply converges.
func TestFaultsVaultApply(t *testing.T) {
	const zone = "v.faults.example.test"
	cf, store := cloudflareTokenInVault(t)
	fp := newFaultProxy(t, store.URL)
	// A stalled store is given up on after 250 ms instead of 5 s.
	useBackend(t, "vault", func(bk *runBackends, _ *backends.Run) {
		bk.Kinds[plan.PhaseSecrets] = &vault.Driver{Timeout: 250 * time.Millisecond}
	})
	id := cf.AddZone(zone)
	if _, err := cf.AddRecord(id, cftest.Record{Name: "legacy." + zone, Type: "A", Content: "192.0.2.200", TTL: 3600}); err != nil {
		t.Fatal(err)
	}
	site := siteSrc(`vaults: bao: {addrs: [`+fmt.Sprintf("%q", fp.URL)+`], mount: "secret", token: env: "VAULT_TOKEN"}
`+cfProvider("cf", cf.URL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`),
		grant{tenant: "office1", domains: []string{zone}, providers: []string{"cf"}})
	file := writeSpec(t, site, "office1.cue", "")
	writeVersion := func(v int) {
		src := fmt.Sprintf(`package tenants

tenants: office1: {
	domain: %q
	dns: zones: %q: {provider: "cf", ttl: 300, records: {
		www: A: ["192.0.2.%d"]
		"@": TXT: ["v=site-%d"]
	}}
}
`, zone, zone, 1+v%200, v)
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	requests := func() int {
		return store.Count("health") + store.Count("read") + store.Count("login") + store.Count("other")
	}
	vaultRun := func(args ...string) (int, string, string) {
		code, stdout, stderr := cfRun(t, args...)
		if strings.Contains(stdout+stderr, vaultToken) {
			t.Fatalf("site %s printed the store's token", strings.Join(args, " "))
		}
		return code, stdout, stderr
	}

	writeVersion(1)
	if code, stdout, stderr := vaultRun("apply", file); code != exitOK {
		t.Fatalf("first apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	n0 := requests()
	writeVersion(2)
	if code, stdout, stderr := vaultRun("apply", file); code != exitOK {
		t.Fatalf("second apply exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	bound := 3*(requests()-n0) + 4

	var vFaults []fault
	for _, f := range faults {
		if f.answer == nil {
			vFaults = append(vFaults, f)
		}
	}
	vFaults = append(vFaults, fault{name: "sealed", toxics: func(*testing.T, *faultProxy, func(int) int) { store.Seal(true) }})
	seed := *faultSeed
	rnd := rand.New(rand.NewSource(seed))
	v, failed := 2, 0
	for i := 0; i < 2*len(vFaults) && !t.Failed(); i++ {
		f := vFaults[i%len(vFaults)]
		v += 1 + rnd.Intn(50)
		what := fmt.Sprintf("seed %d run %d (%s, version %d)", seed, i, f.name, v)
		writeVersion(v)
		before := cfSnapshot(cf, id)
		n0 := requests()
		if f.toxics != nil {
			f.toxics(t, fp, lockedPick(rnd.Int63()))
		}
		code, stdout, stderr := vaultRun("apply", file)
		fp.clear(t)
		store.Seal(false)
		if n := requests() - n0; n > bound {
			t.Errorf("%s: %d requests to the store, want at most %d", what, n, bound)
		}
		// A store no address of which answers is a gate (README, cold
		// start): exit 3, naming it, nothing changed. Else 0 or 1.
		if code == exitGated && strings.Contains(stderr, "GATE-SECRET-UNREACHABLE") && strings.Contains(stderr, "nothing was changed") {
			checkExit(t, what, exitError, stdout, stderr)
		} else {
			checkExit(t, what, code, stdout, stderr)
		}
		after := cfSnapshot(cf, id)
		for k, c := range before {
			if c != cloudflare.Marker("office1") && after[k] != c {
				t.Errorf("%s: foreign record %s changed", what, k)
			}
		}
		for _, w := range []string{"www." + zone + " A", zone + " TXT"} {
			if hasRRset(before, w) && !hasRRset(after, w) {
				t.Errorf("%s: wanted rrset %s was deleted", what, w)
			}
		}
		if strings.Contains(stderr, "its lease runs out by itself") {
			// The fault cut the release: the lock stays held for its
			// lease although the run has ended. Break it, as the
			// operator who knows the run is dead would, or the next
			// runs only report that lock. (Vault's answers are longer
			// than the old fake's, so a truncated answer reaches the
			// release's read here.)
			if c, o, e := vaultRun("unlock", "office1", file, "--ack", "GATE-LOCK-BREAK"); c != exitOK {
				t.Fatalf("%s: unlock after a failed release: exit %d\nstdout:\n%s\nstderr:\n%s", what, c, o, e)
			}
		}
		if code != exitOK {
			failed++
			continue
		}
		if c, o, e := vaultRun("diff", "--detailed-exitcode", file); c != exitOK {
			t.Errorf("%s: apply exited 0 but diff exit %d\nstdout:\n%s\nstderr:\n%s", what, c, o, e)
		}
	}
	if failed == 0 {
		t.Errorf("seed %d: no run failed: the faults never reached site", seed)
	}
	t.Logf("seed %d: %d of %d runs failed", seed, failed, 2*len(vFaults))
	if code, stdout, stderr := vaultRun("apply", file); code != exitOK {
		t.Errorf("clean apply after the faults exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// cloudflareTokenInVault starts the Cloudflare fake and a real Vault dev
// server holding its token at secret/dns/cloudflare, clears the
// environment that would point site elsewhere, and has site's runs use
// the fake through a Cloudflare driver without the client's rate limit.
func cloudflareTokenInVault(t *testing.T) (*cftest.Server, *vaulttest.Dev) {
	t.Helper()
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	store := vaulttest.StartDev(t, vaultToken)
	store.Put("secret", "dns/cloudflare", map[string]any{"token": cfToken})
	t.Setenv("VAULT_TOKEN", vaultToken)
	t.Setenv("VAULT_ADDR", "")
	t.Setenv("SITE_VAULT_ADDRS", "")
	t.Setenv("NO_COLOR", "1")
	t.Setenv(cloudflare.EnvAPIURL, "")
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000}
	})
	return cf, store
}

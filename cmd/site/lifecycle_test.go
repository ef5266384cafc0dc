package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests walk the DNS lifecycle an operator and tenants go through
// over months, against a real PowerDNS and through the CLI: a zone
// handed from one tenant to another, a tenant renamed, a tenant removed,
// a grant revoked. Each state is a step an operator or a tenant really
// commits, in the order a pull request would land it.

// lifecycle is a directory of specs on one PowerDNS, rewritten step by
// step.
type lifecycle struct {
	t   *testing.T
	srv *pdnstest.Server
	dir string
}

func newLifecycle(t *testing.T, grants ...grant) *lifecycle {
	t.Helper()
	srv := pdnsEnv(t)
	l := &lifecycle{t: t, srv: srv}
	l.dir = writeSpecs(t, l.site(grants...), map[string]string{})
	return l
}

// site is the operator's file granting grants on the one provider pdns.
func (l *lifecycle) site(grants ...grant) string {
	return siteSrc(pdnsProvider("pdns", l.srv.URL, "PDNS_API_KEY", l.srv.DNSAddr), grants...)
}

// grant rewrites site.cue, as the operator's commit does.
func (l *lifecycle) grant(grants ...grant) { l.write("site.cue", l.site(grants...)) }

func (l *lifecycle) write(name, src string) {
	l.t.Helper()
	if err := os.WriteFile(l.path(name), []byte(src), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lifecycle) remove(name string) {
	l.t.Helper()
	if err := os.Remove(l.path(name)); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lifecycle) path(name string) string { return filepath.Join(l.dir, name) }

// run runs site, failing the test unless it exits with code.
func (l *lifecycle) run(code int, args ...string) (stdout, stderr string) {
	l.t.Helper()
	got, out, errOut := siteRun(l.t, l.srv, args...)
	if got != code {
		l.t.Fatalf("site %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, out, errOut)
	}
	return out, errOut
}

// marked lists "name type tenant" for every RRset of zone carrying a
// site owner marker.
func (l *lifecycle) marked(zone string) []string {
	l.t.Helper()
	var out []string
	for _, rs := range l.srv.Get(l.t, zone).RRsets {
		for _, c := range rs.Comments {
			if c.Account == powerdns.MarkerAccount {
				out = append(out, rs.Name+" "+rs.Type+" "+strings.TrimPrefix(c.Content, "managed by site tenant="))
			}
		}
	}
	slices.Sort(out)
	return out
}

// zoneFile is a tenant file declaring tenant with domain and, for each
// zone, its records (CUE fields).
func zoneFile(tenant, domain string, zones map[string]string) string {
	var b strings.Builder
	b.WriteString("package tenants\n\ntenants: " + tenant + ": {\n\tdomain: \"" + domain + "\"\n")
	for _, z := range slices.Sorted(maps.Keys(zones)) {
		b.WriteString("\tdns: zones: \"" + z + "\": {provider: \"pdns\", ttl: 300, records: {" + zones[z] + "}}\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// mustSay fails unless text holds every one of want.
func mustSay(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, text)
		}
	}
}

// TestZoneHandedToAnotherTenant walks a zone from tenant alpha to
// tenant beta: the operator moves the grant, alpha drops the zone, beta
// declares it. While alpha's file still declares a zone no longer
// granted to it, every run stops at that file (beta's too: the checks
// between tenants load every file); once alpha has dropped it, beta's
// first apply takes alpha's marked records over behind
// GATE-DNS-OVERWRITE, and the plan says which of alpha's records beta
// does not want, which no run of either tenant would change or delete
// again. alpha's runs never write to the zone again.
func TestZoneHandedToAnotherTenant(t *testing.T) {
	const zone = "shop.test."
	alphaHolds := grant{tenant: "alpha", domains: []string{"alpha.test", "shop.test"}, providers: []string{"pdns"}}
	betaHolds := grant{tenant: "beta", domains: []string{"beta.test", "shop.test"}, providers: []string{"pdns"}}
	alpha := grant{tenant: "alpha", domains: []string{"alpha.test"}, providers: []string{"pdns"}}
	beta := grant{tenant: "beta", domains: []string{"beta.test"}, providers: []string{"pdns"}}
	l := newLifecycle(t, alphaHolds, beta)
	l.write("alpha.cue", zoneFile("alpha", "alpha.test", map[string]string{
		"shop.test": `www: A: ["192.0.2.1"], mail: A: ["192.0.2.2"], old: TXT: ["x"]`}))
	l.write("beta.cue", zoneFile("beta", "beta.test", map[string]string{"beta.test": `www: A: ["192.0.2.9"]`}))
	l.run(exitOK, "apply", l.dir)
	alphaMarked := []string{"mail.shop.test. A alpha", "old.shop.test. TXT alpha", "www.shop.test. A alpha"}
	if got := l.marked(zone); !slices.Equal(got, alphaMarked) {
		t.Fatalf("after alpha's apply the zone holds %q, want %q", got, alphaMarked)
	}

	// The operator moves the grant; alpha's file still declares the zone.
	l.grant(alpha, betaHolds)
	l.srv.ResetRequests(zone)
	for _, file := range []string{"alpha.cue", "beta.cue"} {
		_, errOut := l.run(exitError, "diff", l.path(file))
		mustSay(t, "diff "+file+" while alpha's file declares beta's zone", errOut,
			l.path("alpha.cue")+":5:14: ", "zone shop.test. is granted to tenant beta in site.cue",
			"remove the zone from this file", "(also at "+l.path("site.cue")+":")
	}

	// beta declares it before alpha has dropped it: still alpha's file.
	l.write("beta.cue", zoneFile("beta", "beta.test", map[string]string{
		"beta.test": `www: A: ["192.0.2.9"]`,
		"shop.test": `www: A: ["192.0.2.1"], mail: A: ["192.0.2.3"]`}))
	_, errOut := l.run(exitError, "apply", "--ack", "GATE-DNS-OVERWRITE", l.path("beta.cue"))
	mustSay(t, "beta's apply while alpha's file declares the zone", errOut, l.path("alpha.cue")+":5:14: ")
	if got := l.srv.Requests(zone); got.GET != 0 || got.Writes() != 0 {
		t.Errorf("runs stopped at the specs still reached the zone: %+v", got)
	}

	// alpha drops the zone: beta takes over what it wants, behind the gate.
	l.write("alpha.cue", zoneFile("alpha", "alpha.test", nil))
	out, _ := l.run(exitOK, "diff", l.dir)
	mustSay(t, "diff once alpha dropped the zone", out,
		"= www A  [overwrite]  needs GATE-DNS-OVERWRITE",
		"identical data owned by site tenant alpha",
		"~ mail A  [overwrite]  needs GATE-DNS-OVERWRITE",
		"replaces other content owned by site tenant alpha",
		"note: 1 RRset in zone shop.test. is owned by site tenant alpha and the spec does not want it (old.shop.test./TXT)")
	_, errOut = l.run(exitGated, "apply", l.path("beta.cue"))
	mustSay(t, "beta's apply without the gate", errOut, "--ack GATE-DNS-OVERWRITE")
	if got := l.marked(zone); !slices.Equal(got, alphaMarked) {
		t.Errorf("a gated apply changed the zone: %q", got)
	}
	l.run(exitOK, "apply", "--yes", "--ack", "GATE-DNS-OVERWRITE", l.path("beta.cue"))
	handed := []string{"mail.shop.test. A beta", "old.shop.test. TXT alpha", "www.shop.test. A beta"}
	if got := l.marked(zone); !slices.Equal(got, handed) {
		t.Fatalf("after beta's apply the zone holds %q, want %q", got, handed)
	}
	// Converged, the record alpha left is still said, not hidden.
	out, _ = l.run(exitOK, "diff", "--detailed-exitcode", l.path("beta.cue"))
	mustSay(t, "beta's converged diff", out, "No changes.", "old.shop.test./TXT")

	// alpha can never touch the zone again: not by applying its file,
	// and not by declaring the zone back.
	l.srv.ResetRequests(zone)
	l.run(exitOK, "apply", "--yes", "--ack", "GATE-DNS-DELETE-MANY", l.path("alpha.cue"))
	l.write("alpha.cue", zoneFile("alpha", "alpha.test", map[string]string{"shop.test": ``}))
	l.run(exitError, "apply", "--ack", "GATE-DNS-DELETE-MANY", "--ack", "GATE-DNS-OVERWRITE", l.path("alpha.cue"))
	if got := l.srv.Requests(zone); got.Writes() != 0 {
		t.Errorf("alpha's runs wrote to beta's zone: %+v", got)
	}
	if got := l.marked(zone); !slices.Equal(got, handed) {
		t.Errorf("alpha's runs changed beta's zone: %q, want %q", got, handed)
	}
}

// TestRenamedTenantTakesOverItsRecords renames tenant beta to gamma:
// tenants/beta.cue becomes tenants/gamma.cue and the grant is renamed in
// the same commit. The marker names the tenant, and site keeps no record
// of a rename, so gamma's first plan shows each of beta's records as an
// adoption behind GATE-DNS-OVERWRITE (nothing deleted and recreated,
// nothing served changes), and a record gamma no longer declares is
// noted as beta's, not deleted. Half-done renames stop at the file that
// names a tenant site.cue does not grant.
func TestRenamedTenantTakesOverItsRecords(t *testing.T) {
	const zone = "beta.test."
	beta := grant{tenant: "beta", domains: []string{"beta.test"}, providers: []string{"pdns"}}
	gamma := grant{tenant: "gamma", domains: []string{"beta.test"}, providers: []string{"pdns"}}
	l := newLifecycle(t, beta)
	l.write("beta.cue", zoneFile("beta", "beta.test", map[string]string{"beta.test": `www: A: ["192.0.2.9"], mail: A: ["192.0.2.25"]`}))
	l.run(exitOK, "apply", l.path("beta.cue"))

	// The file is renamed before the grant: gamma is no tenant yet.
	l.remove("beta.cue")
	l.write("gamma.cue", zoneFile("gamma", "beta.test", map[string]string{"beta.test": `www: A: ["192.0.2.9"]`}))
	_, errOut := l.run(exitError, "diff", l.path("gamma.cue"))
	mustSay(t, "diff of the renamed file before its grant", errOut, l.path("gamma.cue")+":3:", "tenant gamma is not declared in the operator's file")

	// Both renamed: gamma takes beta's records over, behind the gate.
	l.grant(gamma)
	l.srv.ResetRequests(zone)
	out, _ := l.run(exitOK, "diff", l.path("gamma.cue"))
	mustSay(t, "diff after the rename", out,
		"= www A  [overwrite]  needs GATE-DNS-OVERWRITE",
		"identical data owned by site tenant beta: marked as ours, served data unchanged",
		"note: 1 RRset in zone beta.test. is owned by site tenant beta and the spec does not want it (mail.beta.test./A)",
		"0 to create, 0 to update, 0 to delete, 1 to adopt")
	l.run(exitGated, "apply", l.path("gamma.cue"))
	if got := l.srv.Requests(zone).Writes(); got != 0 {
		t.Errorf("a gated apply wrote %d times", got)
	}
	l.run(exitOK, "apply", "--yes", "--ack", "GATE-DNS-OVERWRITE", l.path("gamma.cue"))
	if got, want := l.marked(zone), []string{"mail.beta.test. A beta", "www.beta.test. A gamma"}; !slices.Equal(got, want) {
		t.Errorf("after the rename the zone holds %q, want %q", got, want)
	}
	if got := l.srv.Query(t, "mail.beta.test.", "A"); !slices.Equal(got, []string{"300 192.0.2.25"}) {
		t.Errorf("mail.beta.test. A serves %q after the rename, want it kept", got)
	}
}

// TestRemovedTenantLeavesItsRecords removes tenant delta outright (its
// file and its grant): what it wrote stays on the server, marked, and
// no diff says a word of it, as README's offboarding paragraph warns.
// Offboarded as that paragraph says, emptying the zone's records first,
// its records go behind GATE-DNS-DELETE-MANY and the zone itself stays.
func TestRemovedTenantLeavesItsRecords(t *testing.T) {
	const zone = "delta.test."
	delta := grant{tenant: "delta", domains: []string{"delta.test"}, providers: []string{"pdns"}}
	alpha := grant{tenant: "alpha", domains: []string{"alpha.test"}, providers: []string{"pdns"}}
	l := newLifecycle(t, alpha, delta)
	l.write("alpha.cue", zoneFile("alpha", "alpha.test", map[string]string{"alpha.test": `www: A: ["192.0.2.1"]`}))
	l.write("delta.cue", zoneFile("delta", "delta.test", map[string]string{"delta.test": `www: A: ["192.0.2.4"], mail: A: ["192.0.2.5"]`}))
	l.run(exitOK, "apply", l.dir)
	written := []string{"mail.delta.test. A delta", "www.delta.test. A delta"}

	// The grant goes first: every run stops at delta's file, saying so.
	l.grant(alpha)
	_, errOut := l.run(exitError, "diff", l.path("alpha.cue"))
	mustSay(t, "alpha's diff while delta's file outlives its grant", errOut,
		l.path("delta.cue")+":3:10: ", "tenant delta is not declared in the operator's file",
		"or, for a tenant removed, remove this file (what site wrote for it stays on the servers as it is)")

	// Removed outright: nothing is looked at, nothing said, nothing gone.
	l.remove("delta.cue")
	l.srv.ResetRequests(zone)
	out, _ := l.run(exitOK, "diff", "--detailed-exitcode", l.dir)
	if strings.Contains(out, "delta") {
		t.Errorf("diff after delta's removal mentions it:\n%s", out)
	}
	if got := l.srv.Requests(zone); got.GET != 0 || got.Writes() != 0 {
		t.Errorf("diff read delta's zone after its removal: %+v", got)
	}
	if got := l.marked(zone); !slices.Equal(got, written) {
		t.Errorf("after delta's removal its zone holds %q, want %q", got, written)
	}

	// Offboarded: the records first, then the file and the grant.
	l.grant(alpha, delta)
	l.write("delta.cue", zoneFile("delta", "delta.test", map[string]string{"delta.test": ``}))
	out, _ = l.run(exitGated, "apply", l.path("delta.cue"))
	mustSay(t, "apply of delta's emptied zone", out, "# dns/delta.test.", "- www A", "needs GATE-DNS-DELETE-MANY")
	l.run(exitOK, "apply", "--yes", "--ack", "GATE-DNS-DELETE-MANY", l.path("delta.cue"))
	if got := l.marked(zone); len(got) != 0 {
		t.Errorf("after offboarding delta's zone holds %q, want nothing marked", got)
	}
	if !l.srv.Exists(t, zone) {
		t.Errorf("offboarding deleted the zone itself; README says it stays for the operator to delete")
	}
}

// TestRevokedGrantStopsEveryRun revokes a zone from tenant gamma's grant
// while gamma's file still declares it: every run stops at the load with
// exit 1 (alpha's too, as the checks between tenants load every file),
// at gamma's zone and gamma's grant in site.cue, saying what to do;
// nothing is read or written. Once gamma removes the zone from its file,
// its records stay on the server, marked, untouched.
func TestRevokedGrantStopsEveryRun(t *testing.T) {
	const zone = "shop.test."
	gammaHolds := grant{tenant: "gamma", domains: []string{"gamma.test", "shop.test"}, providers: []string{"pdns"}}
	gamma := grant{tenant: "gamma", domains: []string{"gamma.test"}, providers: []string{"pdns"}}
	alpha := grant{tenant: "alpha", domains: []string{"alpha.test"}, providers: []string{"pdns"}}
	l := newLifecycle(t, alpha, gammaHolds)
	l.write("alpha.cue", zoneFile("alpha", "alpha.test", map[string]string{"alpha.test": `www: A: ["192.0.2.1"]`}))
	l.write("gamma.cue", zoneFile("gamma", "gamma.test", map[string]string{
		"gamma.test": `www: A: ["192.0.2.7"]`,
		"shop.test":  `www: A: ["192.0.2.8"]`}))
	l.run(exitOK, "apply", l.dir)

	l.grant(alpha, gamma)
	l.srv.ResetRequests(zone)
	for _, args := range [][]string{
		{"vet", l.dir},
		{"diff", l.path("gamma.cue")},
		{"apply", l.path("gamma.cue")},
		{"diff", l.path("alpha.cue")},
	} {
		out, errOut := l.run(exitError, args...)
		mustSay(t, "site "+strings.Join(args, " ")+" after the revoke", out+errOut,
			l.path("gamma.cue")+":6:14: ",
			"zone shop.test. is outside the domains site.cue grants tenant gamma (gamma.test.)",
			"remove the zone from this file (what site wrote in it stays on the server as it is), or ask the operator to grant it",
			"(also at "+l.path("site.cue")+":")
	}
	if got := l.srv.Requests(zone); got.GET != 0 || got.Writes() != 0 {
		t.Errorf("runs stopped at the specs reached the zone: %+v", got)
	}

	l.write("gamma.cue", zoneFile("gamma", "gamma.test", map[string]string{"gamma.test": `www: A: ["192.0.2.7"]`}))
	out, _ := l.run(exitOK, "diff", "--detailed-exitcode", l.dir)
	mustSay(t, "diff once gamma dropped the zone", out, "No changes.")
	if got, want := l.marked(zone), []string{"www.shop.test. A gamma"}; !slices.Equal(got, want) {
		t.Errorf("after the revoke the zone holds %q, want %q", got, want)
	}
}

// TestDelegatedNameHandedOver hands a name inside alpha's zone to beta
// (delegate: ["shop.acme.test"]): alpha's records there stop vet at
// each of them, pointing at the grant, until alpha drops them; beta's
// zone applied first serves the name, and alpha's apply then deletes
// its own copies (its zone, its marker) without the name going dark.
func TestDelegatedNameHandedOver(t *testing.T) {
	const parent, child = "acme.test.", "shop.acme.test."
	alpha := grant{tenant: "alpha", domains: []string{"acme.test"}, providers: []string{"pdns"}}
	l := newLifecycle(t, alpha)
	l.write("alpha.cue", zoneFile("alpha", "acme.test", map[string]string{"acme.test": `www: A: ["192.0.2.1"], shop: A: ["192.0.2.50"], "x.shop": TXT: ["x"]`}))
	l.run(exitOK, "apply", l.dir)

	l.write("site.cue", l.site(alpha)+"tenants: beta: {delegate: [\"shop.acme.test\"], providers: [\"pdns\"]}\n")
	_, errOut := l.run(exitError, "diff", l.dir)
	mustSay(t, "diff while alpha's zone holds beta's name", errOut,
		l.path("alpha.cue")+":5:", "shop.acme.test. A lies in shop.acme.test., which site.cue grants to tenant beta",
		"x.shop.acme.test. TXT lies in shop.acme.test.", "(also at "+l.path("site.cue")+":")

	l.write("beta.cue", zoneFile("beta", "shop.acme.test", map[string]string{"shop.acme.test": `"@": A: ["192.0.2.50"]`}))
	l.write("alpha.cue", zoneFile("alpha", "acme.test", map[string]string{"acme.test": `www: A: ["192.0.2.1"]`}))
	l.run(exitOK, "apply", l.path("beta.cue"))
	if got := l.srv.Query(t, child, "A"); !slices.Equal(got, []string{"300 192.0.2.50"}) {
		t.Errorf("after beta's apply %s A serves %q", child, got)
	}
	out, _ := l.run(exitOK, "apply", "--yes", "--ack", "GATE-DNS-DELETE-MANY", l.path("alpha.cue"))
	mustSay(t, "alpha's apply", out, "# dns/acme.test.", "- shop A", "- x.shop TXT")
	if got := l.srv.Query(t, child, "A"); !slices.Equal(got, []string{"300 192.0.2.50"}) {
		t.Errorf("after alpha's apply %s A serves %q", child, got)
	}
	if got, want := l.marked(parent), []string{"www.acme.test. A alpha"}; !slices.Equal(got, want) {
		t.Errorf("alpha's zone holds %q, want %q", got, want)
	}
	if got, want := l.marked(child), []string{"shop.acme.test. A beta"}; !slices.Equal(got, want) {
		t.Errorf("beta's zone holds %q, want %q", got, want)
	}
}

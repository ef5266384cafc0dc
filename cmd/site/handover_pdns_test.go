package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestHandover_ApplyBothTenants is the handover as a user runs it on a
// real PowerDNS: tenant a's zone hand.test holds www; then one change
// has the operator grant www.hand.test to tenant b (names:), a drop it
// and b write it (dns: names). vet refuses the change while a still
// writes the name; one apply of both files answers every query for it
// throughout (asked every 50 ms, and every 2 ms), needs no gate and no
// --yes, and leaves b's marker on it; b applied alone after is
// converged.
func TestHandover_ApplyBothTenants(t *testing.T) {
	srv := pdnsEnv(t)
	prov := pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)
	aSrc := func(www string) string {
		return `package tenants

tenants: a: {
	domain: "hand.test"
	dns: zones: "hand.test": {provider: "pdns", records: {
		"@": NS: ["ns1.hand.test."]
		ns1: A: ["192.0.2.53"]
` + www + `
	}}
}
`
	}
	const www = `		www: A: ["192.0.2.80"]`
	bOwn := "package tenants\n\ntenants: b: domain: \"b.test\"\n"
	bName := "package tenants\n\ntenants: b: {\n\tdomain: \"b.test\"\n\tdns: names: \"www.hand.test\": {provider: \"pdns\", A: [\"192.0.2.80\"]}\n}\n"
	grantA := grant{tenant: "a", domains: []string{"hand.test"}, providers: []string{"pdns"}}
	dir := writeSpecs(t, siteSrc(prov+`tenants: b: {domains: ["b.test"], providers: ["pdns"]}`+"\n", grantA),
		map[string]string{"a.cue": aSrc(www), "b.cue": bOwn})
	files := []string{filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")}
	if code, out, errOut := siteRun(t, srv, append([]string{"apply"}, files...)...); code != 0 {
		t.Fatalf("first apply: exit %d\n%s%s", code, out, errOut)
	}

	// The grant and b's name, while a still writes it: two writers.
	granted := siteSrc(prov+`tenants: b: {domains: ["b.test"], names: ["www.hand.test"], providers: ["pdns"]}`+"\n", grantA)
	dir = writeSpecs(t, granted, map[string]string{"a.cue": aSrc(www), "b.cue": bName})
	files = []string{filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")}
	if code, out, errOut := siteRun(t, srv, append([]string{"vet"}, files...)...); code != 1 || !strings.Contains(out+errOut, "two writers") {
		t.Fatalf("vet with a still writing www: exit %d, want 1 and two writers:\n%s%s", code, out, errOut)
	}
	// b alone reads a's file as a neighbour, and stops the same way.
	if code, out, errOut := siteRun(t, srv, "apply", files[1]); code != 1 || !strings.Contains(out+errOut, "two writers") {
		t.Fatalf("apply of b alone with a still writing www: exit %d, want 1 and two writers:\n%s%s", code, out, errOut)
	}

	dir = writeSpecs(t, granted, map[string]string{"a.cue": aSrc(""), "b.cue": bName})
	files = []string{filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")}
	code, out, errOut := siteRun(t, srv, append([]string{"diff"}, files...)...)
	if code != 0 || !strings.Contains(out, "= www A") || !strings.Contains(out, "handed over from tenant a") || strings.Contains(out, "  - ") {
		t.Fatalf("diff: exit %d, want the handover and no delete:\n%s%s", code, out, errOut)
	}
	slow := pdnstest.StartAsking(t, srv.DNSAddr, "www.hand.test.", 50*time.Millisecond, "192.0.2.80")
	fast := pdnstest.StartAsking(t, srv.DNSAddr, "www.hand.test.", 2*time.Millisecond, "192.0.2.80")
	srv.ResetRequests("hand.test.")
	start := time.Now()
	code, out, errOut = siteRun(t, srv, append([]string{"apply"}, files...)...)
	took := time.Since(start)
	fastAsked, fastLost := fast.Finish()
	slowAsked, slowLost := slow.Finish()
	if code != 0 {
		t.Fatalf("handover apply: exit %d\n%s%s", code, out, errOut)
	}
	if fastLost+slowLost != 0 {
		t.Errorf("queries unanswered during the handover: %d of %d (every 2 ms), %d of %d (every 50 ms); want none", fastLost, fastAsked, slowLost, slowAsked)
	}
	writes := srv.Requests("hand.test.")
	if writes.PATCH != 1 || writes.Writes() != 1 {
		t.Errorf("zone hand.test. got %+v during the handover, want exactly one PATCH", writes)
	}
	t.Logf("site apply (both tenants) %v: %d + %d queries, %d unanswered; zone requests %+v", took, fastAsked, slowAsked, fastLost+slowLost, writes)
	rs := srv.Get(t, "hand.test.").Find("www.hand.test.", "A")
	if rs == nil || len(rs.Comments) != 1 || rs.Comments[0].Content != powerdns.Marker("b") {
		t.Fatalf("www after the handover = %+v, want tenant b's marker", rs)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", files[1]); code != 0 {
		t.Errorf("diff of b alone after the handover: exit %d, want 0 (converged)\n%s%s", code, out, errOut)
	}
}

// TestHandover_OneTenantAtATime: after the change, b applied alone takes
// the name over (vet read a's file, which gives it up), and a applied
// alone, before or after, never deletes it: no order of the two applies
// leaves the name unanswered.
func TestHandover_OneTenantAtATime(t *testing.T) {
	srv := pdnsEnv(t)
	prov := pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)
	srv.CreateZone(t, "hand.test.",
		pdnstest.RRset{Name: "www.hand.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.80"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("a")}}})
	site := siteSrc(prov+`tenants: b: {domains: ["b.test"], names: ["www.hand.test"], providers: ["pdns"]}`+"\n",
		grant{tenant: "a", domains: []string{"hand.test"}, providers: []string{"pdns"}})
	dir := writeSpecs(t, site, map[string]string{
		"a.cue": "package tenants\n\ntenants: a: {\n\tdomain: \"hand.test\"\n\tdns: zones: \"hand.test\": {provider: \"pdns\", records: api: A: [\"192.0.2.2\"]}\n}\n",
		"b.cue": "package tenants\n\ntenants: b: {\n\tdomain: \"b.test\"\n\tdns: names: \"www.hand.test\": {provider: \"pdns\", A: [\"192.0.2.80\"]}\n}\n",
	})
	a, b := filepath.Join(dir, "a.cue"), filepath.Join(dir, "b.cue")
	owner := func() string {
		rs := srv.Get(t, "hand.test.").Find("www.hand.test.", "A")
		if rs == nil || len(rs.Comments) != 1 || !slices.Equal(rs.Records, []string{"192.0.2.80"}) {
			t.Fatalf("www = %+v, want 192.0.2.80 with one marker", rs)
		}
		return rs.Comments[0].Content
	}
	// a first: its zone gets api, and www stays a's, served.
	if code, out, errOut := siteRun(t, srv, "apply", a); code != 0 || !strings.Contains(out, "grants the name to tenant b") {
		t.Fatalf("apply a: exit %d, want 0 and the note on www\n%s%s", code, out, errOut)
	}
	if got := owner(); got != powerdns.Marker("a") {
		t.Fatalf("www after a's apply is marked %q, want a's marker left", got)
	}
	if code, out, errOut := siteRun(t, srv, "apply", b); code != 0 || !strings.Contains(out, "handed over from tenant a") {
		t.Fatalf("apply b: exit %d, want 0 and the handover\n%s%s", code, out, errOut)
	}
	if got := owner(); got != powerdns.Marker("b") {
		t.Fatalf("www after b's apply is marked %q, want b's", got)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", a); code != 0 {
		t.Errorf("diff of a after the handover: exit %d, want 0 (nothing to do with b's name)\n%s%s", code, out, errOut)
	}
}

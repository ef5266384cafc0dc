package main

import (
	"path/filepath"
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

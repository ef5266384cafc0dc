package main

import (
	"strings"
	"testing"
)

// TestBreadthZoneRoundTrip (issue 28, items 2 and 4) imports a BIND
// file with a TTL per type at one name and LOC, URI, CERT, SMIMEA,
// HINFO and RP records, applies it to an empty zone on a real
// PowerDNS, and checks that the zone then transfers (AXFR) as the file
// says, record for record and TTLs included; that diff says No
// changes; that site export --format zone says the same as the AXFR;
// and that site export's spec of the live zone vets and diffs No
// changes, so the TTLs and types round-trip through export too.
func TestBreadthZoneRoundTrip(t *testing.T) {
	srv := pdnsEnv(t)
	file := repoFile("cmd/site/testdata/breadth.test.zone")
	rt := importRoundTrip(t, srv, "bind", file, "breadth.test", zoneFileRecords(t, file, "breadth.test."))
	if !strings.Contains(rt.spec, "ttls: {") {
		t.Errorf("the imported spec says no ttls:\n%s", rt.spec)
	}
	code, cue, errOut := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "breadth.test", "--tenant", "lab")
	if code != exitOK {
		t.Fatalf("export exit %d\nstderr:\n%s", code, errOut)
	}
	// export names the provider by its kind; this site.cue calls the
	// same server pdns.
	again := writeSpec(t, rt.site, "lab.cue", strings.Replace(cue, `provider: "powerdns"`, `provider: "pdns"`, 1))
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", again); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff of the exported spec: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, cue)
	}
}

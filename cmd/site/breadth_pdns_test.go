package main

import (
	"os"
	"path/filepath"
	"slices"
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
	const zone = "breadth.test."
	file := repoFile("cmd/site/testdata/breadth.test.zone")
	code, spec, errOut := siteRun(t, srv, "import", "bind", file, "--tenant", "lab", "--provider", "pdns")
	if code != exitOK {
		t.Fatalf("import exit %d\nstderr:\n%s", code, errOut)
	}
	if !strings.Contains(spec, "ttls: {") {
		t.Errorf("the imported spec says no ttls:\n%s", spec)
	}
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "lab", domains: []string{"breadth.test"}, providers: []string{"pdns"}})
	tenant := writeSpec(t, site, "lab.cue", spec)
	if code, out, errOut := siteRun(t, srv, "apply", tenant); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, spec)
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", tenant); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff after apply: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	got := transferred(t, srv.DNSAddr, zone)
	if want := zoneFileRecords(t, file, zone); !slices.Equal(got, want) {
		t.Errorf("AXFR of %s after apply:\n got %q\nwant %q", zone, got, want)
	}

	code, exported, errOut := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "breadth.test", "--tenant", "lab", "--format", "zone")
	if code != exitOK {
		t.Fatalf("export --format zone exit %d\nstderr:\n%s", code, errOut)
	}
	path := filepath.Join(t.TempDir(), "exported.zone")
	if err := os.WriteFile(path, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := zoneFileRecords(t, path, zone); !slices.Equal(again, got) {
		t.Errorf("export --format zone:\n got %q\nwant the AXFR %q\nfile:\n%s", again, got, exported)
	}

	code, cue, errOut := siteRun(t, srv, "export", "powerdns", "--url", srv.URL, "--zone", "breadth.test", "--tenant", "lab")
	if code != exitOK {
		t.Fatalf("export exit %d\nstderr:\n%s", code, errOut)
	}
	// export names the provider by its kind; this site.cue calls the
	// same server pdns.
	again := writeSpec(t, site, "lab.cue", strings.Replace(cue, `provider: "powerdns"`, `provider: "pdns"`, 1))
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", again); code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff of the exported spec: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s\nspec:\n%s", code, out, errOut, cue)
	}
}

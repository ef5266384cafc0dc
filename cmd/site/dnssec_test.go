package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// TestPowerDNSDNSSECParentAndChildInOneApply: a tenant's parent zone and
// its signed child, as a user writes them. diff shows "sign zone" and
// the child's DS pending in the parent; one apply signs the child and
// the parent serves the child's DS, signed; the next diff says No
// changes.
func TestPowerDNSDNSSECParentAndChildInOneApply(t *testing.T) {
	srv := pdnsEnv(t)
	src := `package tenants

tenants: office1: {
	domain: "office1.example.test"
	dns: zones: {
		"office1.example.test": {
			provider: "pdns"
			dnssec:   true
			records: {
				"@": NS: ["ns1.example.org."]
			}
		}
		"lab.office1.example.test": {
			provider: "pdns"
			dnssec:   true
			records: {
				"@": NS: ["ns1.example.org."]
				www: A: ["192.0.2.30"]
			}
		}
	}
}
`
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"pdns"}})
	file := writeSpec(t, site, "office1.cue", src)

	code, out, errOut := siteRun(t, srv, "diff", file)
	for _, want := range []string{"sign zone", "lab DS"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff does not show %q (exit %d)\nstdout:\n%s\nstderr:\n%s", want, code, out, errOut)
		}
	}
	code, out, errOut = siteRun(t, srv, "apply", file)
	if code != exitOK || !strings.Contains(out+errOut, "its parent must publish DS") {
		t.Fatalf("apply exit %d, want 0 and the DS to publish\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	m := new(dns.Msg)
	m.SetQuestion("lab.office1.example.test.", dns.TypeDS)
	m.SetEdns0(4096, true)
	r, _, err := (&dns.Client{Timeout: 5 * time.Second}).Exchange(m, srv.DNSAddr)
	if err != nil {
		t.Fatal(err)
	}
	var ds, sigs int
	var served string
	for _, rr := range r.Answer {
		switch rr := rr.(type) {
		case *dns.DS:
			ds++
			served = strings.ToLower(strings.TrimPrefix(rr.String(), rr.Hdr.String()))
			if !strings.Contains(out+errOut, strings.ToLower(strings.TrimPrefix(rr.String(), rr.Hdr.String()))) {
				t.Errorf("served DS %s is not the one apply reported\n%s", rr, out+errOut)
			}
		case *dns.RRSIG:
			sigs++
		}
	}
	if ds != 1 || sigs != 1 {
		t.Errorf("got %d DS and %d RRSIG for the child, want one of each (signed by the parent):\n%s", ds, sigs, r)
	}

	code, out, errOut = siteRun(t, srv, "diff", "--detailed-exitcode", file)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The converged diff asks for no DS the tenant's own parent zone
	// publishes (the child's); the parent's own DS has nobody here to
	// publish it, so that note stays.
	if strings.Contains(out, "note: DS for the parent: lab.office1.example.test.") {
		t.Errorf("converged diff asks for the DS its parent zone publishes (%s):\n%s", served, out)
	}
	if !strings.Contains(out, "note: DS for the parent: office1.example.test. IN DS ") {
		t.Errorf("converged diff does not show the parent's own DS:\n%s", out)
	}
}

// TestCloudflareDNSSECReportsDS: dnssec: true on a Cloudflare zone vets,
// and diff notes Cloudflare's DNSSEC status under the zone: disabled
// (enable it in the dashboard), then, once active there, the DS the
// parent must publish. Notes are not changes: diff exits 0.
func TestCloudflareDNSSECReportsDS(t *testing.T) {
	cs := newColdStart(t, "signed.example.net")
	t.Setenv("CF_TOKEN", cfToken)
	src := `package tenants

tenants: web: {
	domain: "signed.example.net"
	dns: zones: "signed.example.net": {
		provider: "cf"
		dnssec:   true
		records: www: A: ["192.0.2.40"]
	}
}
`
	site := siteSrc(cfProvider("cf", cs.cf.URL, `{env: "CF_TOKEN"}`), grant{tenant: "web", domains: []string{"signed.example.net"}, providers: []string{"cf"}})
	file := writeSpec(t, site, "web.cue", src)
	if code, out, errOut := cs.site(t, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := cs.site(t, "diff", "--detailed-exitcode", file)
	if code != exitOK || !strings.Contains(out, "but Cloudflare's DNSSEC is disabled: enable it in Cloudflare's dashboard") {
		t.Errorf("diff exit %d, want 0 and a note that DNSSEC is disabled\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	const digest = "48e939042e82c22542cb377b580dfdc52a361cefdc72e7f9107e2b6bd9306a45"
	cs.cf.SetDNSSEC(cs.zoneID, "active", 2371, digest)
	code, out, errOut = cs.site(t, "diff", "--detailed-exitcode", file)
	want := "# dns/signed.example.net. (tenant web)\n  note: DS for the parent: signed.example.net. IN DS 2371 13 2 " + digest + "\n\nNo changes."
	if code != exitOK || !strings.Contains(out, want) {
		t.Errorf("diff exit %d, want 0 and\n%s\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
}

// TestSavedPlanStaleWhenTheDSNoteChanged: the DS a signed zone's parent
// must publish is a note, read from the zone's keys, which no step
// fingerprint covers. A key added between diff --out and apply --plan
// changes that note; the saved plan showed the old DS, so apply refuses
// it as stale, naming the note.
func TestSavedPlanStaleWhenTheDSNoteChanged(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "signed.office1.example.test."
	src := `package tenants

tenants: office1: {
	domain: "office1.example.test"
	dns: zones: "signed.office1.example.test": {
		provider: "pdns"
		dnssec:   true
		records: www: A: ["192.0.2.31"]
	}
}
`
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr),
		grant{tenant: "office1", domains: []string{"office1.example.test"}, providers: []string{"pdns"}})
	file := writeSpec(t, site, "office1.cue", src)
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	if code, out, errOut := siteRun(t, srv, "diff", "--out", planFile, file); code != exitOK || !strings.Contains(out, "note: DS for the parent") {
		t.Fatalf("diff exit %d, want 0 and the DS note\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A second key signing keys, as a rollover starts: the zone's
	// records (and so its fingerprint) stay as they are.
	body := []byte(`{"keytype": "ksk", "active": true, "algorithm": "ecdsa256"}`)
	if status, resp, err := srv.Do(context.Background(), "POST", "/zones/"+zone+"/cryptokeys", body); err != nil || status != 201 {
		t.Fatalf("add a key: %d %s %v", status, resp, err)
	}
	code, out, errOut := siteRun(t, srv, "apply", "--plan", planFile, file)
	want := "dns/" + zone + " notes other facts now"
	if code != exitError || !strings.Contains(errOut, want) {
		t.Fatalf("apply --plan exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, exitError, want, out, errOut)
	}
}

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// A zone on two PowerDNS servers (provider: ["pdns", "pdns2"]), each a
// real pdns_server of its own: apply writes both, a record removed by
// hand on one is planned back on that one only, and one server down
// plans nothing for it, says so, and still plans the other's changes.

const twoZone = "two.example.test."

// twoProviders starts two servers and writes a tenant whose one zone is
// on both; it returns the servers and the tenant file.
func twoProviders(t *testing.T) (a, b *pdnstest.Server, tenant string) {
	t.Helper()
	a = pdnsEnv(t)
	b = pdnstest.New(t, pdnstest.Options{})
	site := siteSrc(pdnsProvider("pdns", a.URL, "PDNS_API_KEY", a.DNSAddr)+pdnsProvider("pdns2", b.URL, "PDNS_API_KEY", b.DNSAddr),
		grant{tenant: "two", domains: []string{"two.example.test"}, providers: []string{"pdns", "pdns2"}})
	src := `package tenants

tenants: two: {
	domain: "two.example.test"
	dns: zones: "two.example.test": {
		provider: ["pdns", "pdns2"]
		ttl: 300
		records: {
			www: A: ["192.0.2.1", "192.0.2.2"]
			mail: {ttl: 3600, A: ["192.0.2.25"]}
			"@": MX: [{priority: 10, host: "mail.two.example.test."}]
			"@": TXT: ["v=spf1 mx -all"]
		}
	}
}
`
	return a, b, writeSpec(t, site, "two.cue", src)
}

// wantTwo is what the spec above transfers as (AXFR, but the SOA).
var wantTwo = []string{
	"two.example.test. 300 IN MX 10 mail.two.example.test.",
	"two.example.test. 300 IN TXT \"v=spf1 mx -all\"",
	"www.two.example.test. 300 IN A 192.0.2.1",
	"www.two.example.test. 300 IN A 192.0.2.2",
	"mail.two.example.test. 3600 IN A 192.0.2.25",
}

// applyTwo applies the tenant to both servers.
func applyTwo(t *testing.T, a *pdnstest.Server, tenant string) {
	t.Helper()
	if code, out, errOut := siteRun(t, a, "apply", tenant); code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// served is zone's records on srv as the AXFR gives them, SOA and
// apex NS left out, in presentation form, sorted.
func served(t *testing.T, srv *pdnstest.Server, zone string) []string {
	t.Helper()
	var out []string
	for _, w := range transferred(t, srv.DNSAddr, zone) {
		name, rest, _ := strings.Cut(w, " ")
		if name == zone && strings.HasPrefix(rest, "NS ") {
			continue
		}
		out = append(out, w)
	}
	return out
}

// wire forms of wantTwo, for comparison with served.
func wantTwoWire(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, s := range wantTwo {
		rr, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, wire(t, rr))
	}
	slices.Sort(out)
	return out
}

func TestZoneOnTwoProviders_ApplyWritesBoth(t *testing.T) {
	a, b, tenant := twoProviders(t)
	applyTwo(t, a, tenant)
	want := wantTwoWire(t)
	for name, srv := range map[string]*pdnstest.Server{"pdns": a, "pdns2": b} {
		if got := served(t, srv, twoZone); !slices.Equal(got, want) {
			t.Errorf("AXFR of %s from %s after apply:\n got %q\nwant %q", twoZone, name, got, want)
		}
	}
	code, out, errOut := siteRun(t, a, "diff", "--detailed-exitcode", tenant)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("diff after apply: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The zone is declared on both servers: neither copy is left over.
	code, out, errOut = siteRun(t, a, "leftovers", filepath.Dir(tenant))
	if code != exitOK || !strings.Contains(out, "Nothing left over on 2 providers") {
		t.Errorf("leftovers after apply: exit %d, want 0 and nothing left over\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestZoneOnTwoProviders_HandRemovedRecordPlannedBackOnThatOneOnly(t *testing.T) {
	a, b, tenant := twoProviders(t)
	applyTwo(t, a, tenant)
	removeRRset(t, b, twoZone, "www."+twoZone, "A")

	code, out, errOut := siteRun(t, a, "diff", "--detailed-exitcode", "--format", "json", tenant)
	if code != exitChanges {
		t.Fatalf("diff: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitChanges, out, errOut)
	}
	var p struct {
		Changes []struct{ Key, Step, Action string }
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("diff --format json: %v\n%s", err, out)
	}
	if len(p.Changes) != 1 || p.Changes[0].Step != "dns/"+twoZone+"@pdns2" || p.Changes[0].Key != "dns/"+twoZone+"/www."+twoZone+"/A" {
		t.Fatalf("diff plans %+v; want exactly the A of www created again, on pdns2 (step dns/%s@pdns2)", p.Changes, twoZone)
	}
	_, text, _ := siteRun(t, a, "diff", tenant)
	if !strings.Contains(text, "# dns/"+twoZone+"@pdns2 (tenant two)") || strings.Contains(text, "# dns/"+twoZone+"@pdns (tenant two)") {
		t.Errorf("the text plan heads the change with its provider's step only:\n%s", text)
	}

	applyTwo(t, a, tenant)
	if got, want := served(t, b, twoZone), wantTwoWire(t); !slices.Equal(got, want) {
		t.Errorf("AXFR from pdns2 after the second apply:\n got %q\nwant %q", got, want)
	}
}

func TestZoneOnTwoProviders_OneServerDownPlansNothingForItAndSaysSo(t *testing.T) {
	a, b, tenant := twoProviders(t)
	applyTwo(t, a, tenant)
	removeRRset(t, a, twoZone, "mail."+twoZone, "A")
	b.Close()

	code, out, errOut := siteRun(t, a, "diff", tenant)
	// DESIGN's exit codes: a step not planned is an incomplete plan, 1.
	if code != exitError {
		t.Fatalf("diff with pdns2 down: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	for _, want := range []string{
		"! dns/" + twoZone + "@pdns2: ",
		"# dns/" + twoZone + "@pdns (tenant two)",
		"+ mail A",
		"Plan: 1 to create, 0 to update, 0 to delete, 0 to adopt; 1 step not planned.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff with pdns2 down says no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "! dns/"+twoZone+"@pdns:") {
		t.Errorf("diff says pdns was not observed; only pdns2 is down:\n%s", out)
	}
	if !strings.Contains(errOut, "1 step could not be planned") {
		t.Errorf("stderr does not say a step was not planned:\n%s", errOut)
	}
	// apply changes nothing while a step in scope is not observed ...
	if code, out, errOut := siteRun(t, a, "apply", tenant); code != exitError || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("apply with pdns2 down: exit %d, want %d and nothing changed\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
	}
	if got := a.Query(t, "mail."+twoZone, "A"); len(got) != 0 {
		t.Errorf("pdns serves mail A %q after an apply that was to change nothing", got)
	}
	// ... and converges the provider that answers when told to leave
	// the other out (site help providers).
	if code, out, errOut := siteRun(t, a, "apply", "--target", "dns/"+twoZone+"@pdns", tenant); code != exitOK {
		t.Fatalf("apply --target the pdns step: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := served(t, a, twoZone); !slices.Equal(got, wantTwoWire(t)) {
		t.Errorf("AXFR from pdns after apply --target its step:\n got %q\nwant %q", got, wantTwoWire(t))
	}
}

// removeRRset deletes one rrset from zone on srv by hand, through the
// API, as someone other than site would.
func removeRRset(t *testing.T, srv *pdnstest.Server, zone, name, typ string) {
	t.Helper()
	patchRRset(t, srv, zone, map[string]any{"name": name, "type": typ, "changetype": "DELETE"})
}

// patchRRset sends one rrset change to zone on srv, as written, by hand.
func patchRRset(t *testing.T, srv *pdnstest.Server, zone string, rrset map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"rrsets": []map[string]any{rrset}})
	status, out, err := srv.Do(context.Background(), "PATCH", "/zones/"+zone, body)
	if err != nil || status != 204 {
		t.Fatalf("patch %v on %s: status %d, %v: %s", rrset, srv.URL, status, err, out)
	}
}

// TestZoneOnTwoProviders_GatedPerProvider: foreign data at a wanted
// name on one server gates the overwrite on that server's step alone;
// apply without the gate changes nothing on either, and the refusal
// says which provider the gate is for.
func TestZoneOnTwoProviders_GatedPerProvider(t *testing.T) {
	a, b, tenant := twoProviders(t)
	applyTwo(t, a, tenant)
	// Someone else's www on pdns2: no owner marker, other addresses.
	patchRRset(t, b, twoZone, map[string]any{"name": "www." + twoZone, "type": "A", "ttl": 300, "changetype": "REPLACE",
		"records": []map[string]any{{"content": "198.51.100.7", "disabled": false}}, "comments": []any{}})
	removeRRset(t, a, twoZone, "mail."+twoZone, "A")

	code, out, errOut := siteRun(t, a, "diff", "--format", "json", tenant)
	if code != exitOK {
		t.Fatalf("diff: exit %d\nstderr:\n%s", code, errOut)
	}
	var p struct {
		Changes []struct {
			Key, Step string
			Gates     []string
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	gated := map[string][]string{}
	for _, c := range p.Changes {
		gated[c.Step] = append(gated[c.Step], c.Gates...)
	}
	if len(p.Changes) != 2 || !slices.Equal(gated["dns/"+twoZone+"@pdns2"], []string{"GATE-DNS-OVERWRITE"}) || len(gated["dns/"+twoZone+"@pdns"]) != 0 {
		t.Fatalf("diff plans %+v; want mail A back on pdns ungated and www A overwritten on pdns2 behind GATE-DNS-OVERWRITE", p.Changes)
	}

	code, out, errOut = siteRun(t, a, "apply", "--yes", tenant)
	if code != exitGated {
		t.Fatalf("apply without the gate: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	if !strings.Contains(errOut, "GATE-DNS-OVERWRITE") || !strings.Contains(errOut, "/www."+twoZone+"/A on dns/"+twoZone+"@pdns2 [overwrite]") {
		t.Errorf("the refusal does not name the gate, the record and its provider's step:\n%s", errOut)
	}
	if got := b.Query(t, "www."+twoZone, "A"); !slices.Equal(got, []string{"300 198.51.100.7"}) {
		t.Errorf("pdns2 serves www A %q after a refused apply; want the foreign record untouched", got)
	}
	if code, out, errOut := siteRun(t, a, "apply", "--yes", "--ack", "GATE-DNS-OVERWRITE", tenant); code != exitOK {
		t.Fatalf("apply with the gate: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := wantTwoWire(t)
	for name, srv := range map[string]*pdnstest.Server{"pdns": a, "pdns2": b} {
		if got := served(t, srv, twoZone); !slices.Equal(got, want) {
			t.Errorf("AXFR from %s after the acknowledged apply:\n got %q\nwant %q", name, got, want)
		}
	}
}

// TestZoneOnTwoProviders_PowerDNSAndCloudflare: one zone on a real
// PowerDNS and the Cloudflare fake (cftest) gets the same records on
// each, and a second diff plans nothing on either.
func TestZoneOnTwoProviders_PowerDNSAndCloudflare(t *testing.T) {
	a := pdnsEnv(t)
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	zoneID := cf.AddZone("mixed.example.test")
	t.Setenv("CF_TOKEN", cfToken)
	t.Setenv(cloudflare.EnvAPIURL, "")
	site := siteSrc(pdnsProvider("pdns", a.URL, "PDNS_API_KEY", a.DNSAddr)+cfProvider("cf", cf.URL, `{env: "CF_TOKEN"}`),
		grant{tenant: "mixed", domains: []string{"mixed.example.test"}, providers: []string{"pdns", "cf"}})
	tenant := writeSpec(t, site, "mixed.cue", `package tenants

tenants: mixed: {
	domain: "mixed.example.test"
	dns: zones: "mixed.example.test": {
		provider: ["pdns", "cf"]
		ttl: 300
		records: {
			www: A: ["192.0.2.1"]
			"@": TXT: ["v=spf1 -all"]
		}
	}
}
`)
	if code, out, errOut := siteRun(t, a, "apply", tenant); code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var got []string
	for _, r := range cf.Records(zoneID) {
		got = append(got, r.Name+" "+r.Type+" "+r.Content)
	}
	slices.Sort(got)
	if want := []string{`mixed.example.test TXT "v=spf1 -all"`, "www.mixed.example.test A 192.0.2.1"}; !slices.Equal(got, want) {
		t.Errorf("Cloudflare holds %q, want %q", got, want)
	}
	if got := a.Query(t, "www.mixed.example.test.", "A"); !slices.Equal(got, []string{"300 192.0.2.1"}) {
		t.Errorf("PowerDNS serves www A %q, want 300 192.0.2.1", got)
	}
	code, out, errOut := siteRun(t, a, "diff", "--detailed-exitcode", tenant)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Errorf("diff after apply: exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

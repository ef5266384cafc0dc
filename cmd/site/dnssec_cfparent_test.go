package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests are the Cloudflare parent's side of dnssec: true: a
// tenant's Cloudflare zone writes the DS of its signed child, a PowerDNS
// zone site signs or a Cloudflare zone whose DNSSEC is on, as a DS
// record of the fake Cloudflare that carries the owner marker.

// cfDS returns the DS records the fake Cloudflare holds at name in
// zoneID, as their content, failing t on one without the tenant's
// marker or without the data Cloudflare's API gives a DS.
func cfDS(t *testing.T, srv *cftest.Server, zoneID, name, tenant string) []string {
	t.Helper()
	var out []string
	for _, r := range srv.Records(zoneID) {
		if r.Type != "DS" || r.Name != strings.TrimSuffix(name, ".") {
			continue
		}
		if r.Comment != cloudflare.Marker(tenant) {
			t.Errorf("DS %s: comment %q, want the owner marker", r.Content, r.Comment)
		}
		if f := strings.Fields(r.Content); len(f) != 4 || r.Data["key_tag"] == nil || r.Data["digest"] != strings.ToLower(f[3]) {
			t.Errorf("DS %s: data %v, want key_tag, algorithm, digest_type and digest", r.Content, r.Data)
		}
		out = append(out, strings.ToLower(r.Content))
	}
	return out
}

// pdnsChildDS is the SHA-256 DS of zone's keys, read from the PowerDNS
// cryptokeys API.
func pdnsChildDS(t *testing.T, srv *pdnstest.Server, zone string) []string {
	t.Helper()
	status, body, err := srv.Do(context.Background(), "GET", "/zones/"+zone+"/cryptokeys", nil)
	if err != nil || status != 200 {
		t.Fatalf("read the keys of %s: %d %v", zone, status, err)
	}
	var keys []struct {
		Active bool     `json:"active"`
		DS     []string `json:"ds"`
	}
	if err := json.Unmarshal(body, &keys); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range keys {
		for _, ds := range k.DS {
			if f := strings.Fields(ds); k.Active && len(f) == 4 && f[2] == "2" {
				out = append(out, strings.ToLower(ds))
			}
		}
	}
	return out
}

// TestCloudflareParentPublishesPowerDNSChildDS: a tenant's Cloudflare
// zone delegates to its PowerDNS zone with dnssec: true, which site
// creates and signs in the same apply. The first diff shows the DS as
// pending; the apply writes the key's DS into Cloudflare as a DS record
// site owns, and the next diff has nothing to do. Removing dnssec: true
// from the child deletes that DS.
func TestCloudflareParentPublishesPowerDNSChildDS(t *testing.T) {
	srv := pdnsEnv(t)
	const parent, child = "cfp.example.test.", "kid.cfp.example.test."
	cs := newColdStart(t, strings.TrimSuffix(parent, "."))
	file := writeDelegation(t, srv, cs, parent, "cf", child, "pdns", "ns1.example.org.", "192.0.2.42")

	code, out, errOut := cs.site(t, "diff", file)
	if want := "+ dns/" + parent + "/" + child + "/DS"; !shownChange(out, "+", parent, child, "DS") {
		t.Errorf("diff exit %d does not show the pending DS %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	cfConverge(t, cs, file, "signed")
	ds := pdnsChildDS(t, srv, child)
	if len(ds) != 1 {
		t.Fatalf("the child has DS %q, want one", ds)
	}
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 1 || got[0] != ds[0] {
		t.Errorf("Cloudflare holds DS %q at %s, want the child's %q", got, child, ds)
	}

	dropDNSSEC(t, file)
	cfConverge(t, cs, file, "dnssec removed")
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 0 {
		t.Errorf("dnssec removed: Cloudflare holds DS %q, want none", got)
	}
}

// delegationSpec is tenant web's file: its domain and zone parent on
// provider pp, delegating to zone child on provider cp (NS ns there),
// which says dnssec: true and holds www A addr.
func delegationSpec(parent, pp, child, cp, ns, addr string) string {
	parent, child = strings.TrimSuffix(parent, "."), strings.TrimSuffix(child, ".")
	label := strings.TrimSuffix(child, "."+parent)
	return fmt.Sprintf(`package tenants

tenants: web: {
	domain: %[1]q
	dns: zones: {
		%[1]q: {
			provider: %[2]q
			records: %[3]s: NS: [%[4]q]
		}
		%[5]q: {
			provider: %[6]q
			dnssec:   true
			records: www: A: [%[7]q]
		}
	}
}
`, parent, pp, label, ns, child, cp, addr)
}

// writeDelegation writes delegationSpec's file and the site.cue that
// grants tenant web the parent's domain and the providers it names:
// "pdns" on srv, "cf" on cs's fake with the token in CF_TOKEN.
func writeDelegation(t *testing.T, srv *pdnstest.Server, cs *coldStart, parent, pp, child, cp, ns, addr string) string {
	t.Helper()
	t.Setenv("CF_TOKEN", cfToken)
	var decls string
	var providers []string
	for _, p := range []string{"pdns", "cf"} {
		if p != pp && p != cp {
			continue
		}
		providers = append(providers, p)
		if p == "pdns" {
			decls += pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr)
		} else {
			decls += cfProvider("cf", cs.cf.URL, `{env: "CF_TOKEN"}`)
		}
	}
	site := siteSrc(decls, grant{tenant: "web", domains: []string{strings.TrimSuffix(parent, ".")}, providers: providers})
	return writeSpec(t, site, "web.cue", delegationSpec(parent, pp, child, cp, ns, addr))
}

// dropDNSSEC takes dnssec: true out of delegationSpec's file.
func dropDNSSEC(t *testing.T, file string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bytes.Replace(src, []byte("dnssec:   true\n"), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cfConverge applies file, then checks that site diff has nothing to do
// and returns what it printed.
func cfConverge(t *testing.T, cs *coldStart, file, step string) string {
	t.Helper()
	if code, out, errOut := cs.site(t, "apply", "--yes", file); code != exitOK {
		t.Fatalf("%s: apply exit %d\nstdout:\n%s\nstderr:\n%s", step, code, out, errOut)
	}
	code, out, errOut := cs.site(t, "diff", "--detailed-exitcode", file)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Fatalf("%s: diff exit %d, want 0 and No changes.\nstdout:\n%s\nstderr:\n%s", step, code, out, errOut)
	}
	return out
}

// TestCloudflareParentPublishesCloudflareChildDS: both zones on
// Cloudflare. While the child's DNSSEC is disabled the parent writes no
// DS and says why; once it is active the apply that reads it writes its
// DS; pending-disabled leaves that DS alone with a note; removing
// dnssec: true from the child deletes it. Each apply converges.
func TestCloudflareParentPublishesCloudflareChildDS(t *testing.T) {
	const parent, child = "cfcf.example.test.", "shop.cfcf.example.test."
	cs := newColdStart(t, strings.TrimSuffix(parent, "."))
	childID := cs.cf.AddZone(strings.TrimSuffix(child, "."))
	file := writeDelegation(t, nil, cs, parent, "cf", child, "cf", "ns1.cloudflare.example.", "192.0.2.43")

	out := cfConverge(t, cs, file, "disabled")
	if want := "the DS of " + child + " is not written: Cloudflare's DNSSEC for it is disabled"; !strings.Contains(out, want) {
		t.Errorf("disabled: diff does not say %q:\n%s", want, out)
	}
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 0 {
		t.Errorf("disabled: Cloudflare holds DS %q, want none", got)
	}

	const keyTag, digest = 4711, "2fa14f53e6b15cac9ac77846c7be87862c2a7e9ec0c6cea319db939317f126ed"
	cs.cf.SetDNSSEC(childID, "active", keyTag, digest)
	code, out, errOut := cs.site(t, "diff", file)
	if want := "+ dns/" + parent + "/" + child + "/DS"; !shownChange(out, "+", parent, child, "DS") {
		t.Errorf("active: diff exit %d does not show %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	cfConverge(t, cs, file, "active")
	want := strconv.Itoa(keyTag) + " 13 2 " + digest
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 1 || got[0] != want {
		t.Errorf("active: Cloudflare holds DS %q, want [%s]", got, want)
	}

	cs.cf.SetDNSSEC(childID, "pending-disabled", keyTag, digest)
	out = cfConverge(t, cs, file, "pending-disabled")
	if want := "Cloudflare's DNSSEC for it is pending-disabled, with no DS to publish; any DS here stays as it is"; !strings.Contains(out, want) {
		t.Errorf("pending-disabled: diff does not say %q:\n%s", want, out)
	}
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 1 {
		t.Errorf("pending-disabled: Cloudflare holds DS %q, want the one it had", got)
	}

	dropDNSSEC(t, file)
	cfConverge(t, cs, file, "dnssec removed")
	if got := cfDS(t, cs.cf, cs.zoneID, child, "web"); len(got) != 0 {
		t.Errorf("dnssec removed: Cloudflare holds DS %q, want none", got)
	}
}

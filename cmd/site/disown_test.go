package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// pdnsComments lists every rrset's comments as "name type account:content".
func pdnsComments(t *testing.T, srv *pdnstest.Server, zone string) []string {
	t.Helper()
	var out []string
	for _, rs := range srv.Get(t, zone).RRsets {
		for _, c := range rs.Comments {
			out = append(out, fmt.Sprintf("%s %s %s:%s", rs.Name, rs.Type, c.Account, c.Content))
		}
	}
	sort.Strings(out)
	return out
}

// TestDisownPowerDNS marks a zone the way export --adopt does, then
// checks that disown lists and changes nothing without the gate, takes
// only the markers of --name when given, and keeps every other comment
// and the records.
func TestDisownPowerDNS(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "gone.example.test."
	marker := pdnstest.Comment{Account: powerdns.MarkerAccount, Content: powerdns.Marker("old")}
	note := pdnstest.Comment{Account: "ops", Content: "ticket 42"}
	srv.CreateZone(t, zone,
		pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker}},
		pdnstest.RRset{Name: "mail." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.2"}, Comments: []pdnstest.Comment{note, marker}},
		pdnstest.RRset{Name: "hand." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.3"}, Comments: []pdnstest.Comment{note}},
	)
	before := pdnsComments(t, srv, zone)
	base := []string{"disown", "powerdns", "gone.example.test", "--url", srv.URL}

	code, out, errOut := siteRun(t, srv, base...)
	if code != exitGated || !strings.Contains(out, "would remove 2 owner markers:") ||
		!strings.Contains(out, "  - www.gone.example.test. A (tenant old)") || !strings.Contains(errOut, "--ack GATE-DNS-DISOWN") {
		t.Fatalf("disown without --ack: exit %d, want 3 and the markers listed\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("disown without --ack changed comments:\n%q\nwant\n%q", got, before)
	}

	code, out, errOut = siteRun(t, srv, append(base, "--name", "mail", "--ack", "GATE-DNS-DISOWN")...)
	if code != exitOK || !strings.Contains(out, "removed site's owner marker from 1 record set of zone gone.example.test.") {
		t.Fatalf("disown --name mail: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := []string{
		"hand.gone.example.test. A ops:ticket 42",
		"mail.gone.example.test. A ops:ticket 42",
		"www.gone.example.test. A site:" + powerdns.Marker("old"),
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after disown --name mail:\n got %q\nwant %q", got, want)
	}

	// The last comment of an rrset goes too (an empty comments list,
	// which the client library cannot send).
	if code, out, errOut := siteRun(t, srv, append(base, "--ack", "GATE-DNS-DISOWN")...); code != exitOK {
		t.Fatalf("disown --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := pdnsComments(t, srv, zone); strings.Join(got, "\n") != strings.Join(want[:2], "\n") {
		t.Errorf("after disown --ack:\n got %q\nwant %q", got, want[:2])
	}
	if r := srv.Get(t, zone).Find("www."+zone, "A"); r == nil || len(r.Records) != 1 || r.Records[0] != "192.0.2.1" {
		t.Errorf("disown changed the records: %+v", r)
	}
	code, out, _ = siteRun(t, srv, base...)
	if code != exitOK || !strings.Contains(out, "no site owner markers; nothing to do.") {
		t.Errorf("disown of an unmarked zone: exit %d\n%s", code, out)
	}
}

// TestDisownCloudflare does the same through the batch endpoint of the
// Cloudflare fake: only marker comments are emptied.
func TestDisownCloudflare(t *testing.T) {
	cs := newColdStart(t, "web.example.net")
	t.Setenv("CF_TOKEN", cfToken)
	for _, r := range []cftest.Record{
		{Name: "web.example.net", Type: "A", Content: "192.0.2.1", TTL: 300, Comment: cloudflare.Marker("web")},
		{Name: "www.web.example.net", Type: "CNAME", Content: "web.example.net", TTL: 300, Comment: "made by hand"},
		{Name: "old.web.example.net", Type: "TXT", Content: `"x"`, TTL: 300, Comment: cloudflare.Marker("web")},
	} {
		if _, err := cs.cf.AddRecord(cs.zoneID, r); err != nil {
			t.Fatalf("AddRecord %+v: %v", r, err)
		}
	}
	base := []string{"disown", "cloudflare", "web.example.net", "--token-env", "CF_TOKEN", "--api-url", cs.cf.URL}
	if code, out, errOut := cs.site(t, base...); code != exitGated || !strings.Contains(out, "would remove 2 owner markers:\n") ||
		!strings.Contains(out, "  - old.web.example.net. TXT (tenant web)") {
		t.Fatalf("disown without --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := cs.site(t, append(base, "--name", "old.web.example.net.", "--ack", "GATE-DNS-DISOWN")...); code != exitOK ||
		!strings.Contains(out, "removing 1 owner marker:\n") || !strings.Contains(out, "removed site's owner marker from 1 record of zone web.example.net.;") {
		t.Fatalf("disown --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var got []string
	for _, r := range cs.cf.Records(cs.zoneID) {
		got = append(got, r.Name+" "+r.Type+" "+r.Content+" comment="+r.Comment)
	}
	sort.Strings(got)
	want := []string{
		`old.web.example.net TXT "x" comment=`,
		"web.example.net A 192.0.2.1 comment=" + cloudflare.Marker("web"),
		"www.web.example.net CNAME web.example.net comment=made by hand",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after disown:\n got %q\nwant %q", got, want)
	}
}

// disownNameCase is one run of site disown with --name values: the
// zone as typed, the names, and what the operator is told.
type disownNameCase struct {
	name  string
	zone  string   // ZONE as typed
	names []string // --name values
	ack   bool
	code  int
	out   string // the whole of stdout
	err   string // in stderr ("" when stderr must be empty)
}

// disownNameCases are run against PowerDNS and Cloudflare alike. Each
// zone has www A marked for tenant old and hand A with a hand-written
// comment. A relative --name is read inside the zone, so one that
// already ends in the zone's name (any case, Unicode or xn-- spelling)
// is refused before anything is read, even with --ack; every message
// names the canonical name looked up, not the argument.
var disownNameCases = []disownNameCase{
	{name: "relative label", zone: "legacy.example.test", names: []string{"www"}, code: exitGated,
		out: "zone legacy.example.test.: would remove 1 owner marker:\n  - www.legacy.example.test. A (tenant old)\n",
		err: "--ack GATE-DNS-DISOWN"},
	{name: "relative label in upper case", zone: "legacy.example.test", names: []string{"WWW"}, code: exitGated,
		out: "zone legacy.example.test.: would remove 1 owner marker:\n  - www.legacy.example.test. A (tenant old)\n",
		err: "--ack GATE-DNS-DISOWN"},
	{name: "absolute", zone: "legacy.example.test", names: []string{"www.legacy.example.test."}, code: exitGated,
		out: "zone legacy.example.test.: would remove 1 owner marker:\n  - www.legacy.example.test. A (tenant old)\n",
		err: "--ack GATE-DNS-DISOWN"},
	{name: "apex", zone: "legacy.example.test", names: []string{"@"}, code: exitOK,
		out: "zone legacy.example.test.: no site owner markers at legacy.example.test.; nothing to do.\n"},
	{name: "unmarked name is named canonically", zone: "legacy.example.test", names: []string{"Hand"}, ack: true, code: exitOK,
		out: "zone legacy.example.test.: no site owner markers at hand.legacy.example.test.; nothing to do.\n"},
	{name: "a name without markers beside one with", zone: "legacy.example.test", names: []string{"www", "ww"}, code: exitGated,
		out: "zone legacy.example.test.: would remove 1 owner marker:\n  - www.legacy.example.test. A (tenant old)\n" +
			"zone legacy.example.test.: no site owner markers at ww.legacy.example.test.\n",
		err: "--ack GATE-DNS-DISOWN"},
	{name: "relative name ending in the zone", zone: "legacy.example.test", names: []string{"www.legacy.example.test"}, ack: true, code: exitError,
		err: "site: --name www.legacy.example.test is read relative to zone legacy.example.test., as www.legacy.example.test.legacy.example.test.; " +
			"write --name www (relative to the zone) or --name www.legacy.example.test. (absolute, with the trailing dot); nothing was read or changed\n"},
	{name: "relative name ending in the zone, other case", zone: "Legacy.Example.Test.", names: []string{"www", "WWW.LEGACY.example.TEST"}, ack: true, code: exitError,
		err: "as www.legacy.example.test.legacy.example.test.; write --name www (relative to the zone) or --name www.legacy.example.test. (absolute"},
	{name: "relative name that is the zone", zone: "legacy.example.test", names: []string{"legacy.example.test"}, ack: true, code: exitError,
		err: "as legacy.example.test.legacy.example.test.; write --name @ (the zone apex) or --name legacy.example.test. (absolute"},
	{name: "Unicode name in an xn-- zone", zone: "xn--bcher-kva.example.test", names: []string{"www.BÜCHER.example.test"}, ack: true, code: exitError,
		err: "--name www.BÜCHER.example.test is read relative to zone xn--bcher-kva.example.test., as www.xn--bcher-kva.example.test.xn--bcher-kva.example.test.; " +
			"write --name www (relative to the zone) or --name www.xn--bcher-kva.example.test. (absolute"},
	{name: "xn-- name in a Unicode zone", zone: "bücher.example.test", names: []string{"www.xn--bcher-kva.example.test"}, ack: true, code: exitError,
		err: "write --name www (relative to the zone) or --name www.xn--bcher-kva.example.test. (absolute"},
	{name: "Unicode relative label", zone: "bücher.example.test", names: []string{"WWW"}, code: exitGated,
		out: "zone xn--bcher-kva.example.test.: would remove 1 owner marker:\n  - www.xn--bcher-kva.example.test. A (tenant old)\n",
		err: "--ack GATE-DNS-DISOWN"},
	{name: "a name that only shares the zone's last labels", zone: "legacy.example.test", names: []string{"example.test"}, ack: true, code: exitOK,
		out: "zone legacy.example.test.: no site owner markers at example.test.legacy.example.test.; nothing to do.\n"},
}

// disownNameZones are the zones disownNameCases run in.
var disownNameZones = []string{"legacy.example.test.", "xn--bcher-kva.example.test."}

// checkDisownName runs c with site and checks what it printed; requests
// says how many requests reached the server during the run.
func checkDisownName(t *testing.T, c disownNameCase, site func(args ...string) (int, string, string), requests func() int, base ...string) {
	t.Helper()
	args := append(slices.Clone(base), c.zone)
	for _, n := range c.names {
		args = append(args, "--name", n)
	}
	if c.ack {
		args = append(args, "--ack", "GATE-DNS-DISOWN")
	}
	code, out, errOut := site(args...)
	if code != c.code || out != c.out || (c.err == "") != (errOut == "") || !strings.Contains(errOut, c.err) {
		t.Fatalf("site %s: exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s\nwant it to hold:\n%s",
			strings.Join(args, " "), code, c.code, out, c.out, errOut, c.err)
	}
	if n := requests(); c.code == exitError && n != 0 {
		t.Errorf("site %s was refused but sent %d requests first", strings.Join(args, " "), n)
	}
}

func TestDisownPowerDNSNames(t *testing.T) {
	srv := pdnsEnv(t)
	marker := pdnstest.Comment{Account: powerdns.MarkerAccount, Content: powerdns.Marker("old")}
	note := pdnstest.Comment{Account: "ops", Content: "ticket 42"}
	for _, zone := range disownNameZones {
		srv.CreateZone(t, zone,
			pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{marker}},
			pdnstest.RRset{Name: "hand." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.3"}, Comments: []pdnstest.Comment{note}},
		)
	}
	snapshot := func() string {
		var all []string
		for _, zone := range disownNameZones {
			all = append(all, pdnsComments(t, srv, zone)...)
		}
		return strings.Join(all, "\n")
	}
	before := snapshot()
	requests := func() int {
		n := 0
		for _, z := range append([]string{""}, disownNameZones...) {
			c := srv.Requests(z)
			n += c.GET + c.Writes()
			srv.ResetRequests(z)
		}
		return n
	}
	for _, c := range disownNameCases {
		t.Run(c.name, func(t *testing.T) {
			requests()
			checkDisownName(t, c, func(args ...string) (int, string, string) { return siteRun(t, srv, args...) },
				requests, "disown", "powerdns", "--url", srv.URL)
			if got := snapshot(); got != before {
				t.Errorf("comments changed:\n%s\nwant\n%s", got, before)
			}
		})
	}
}

func TestDisownCloudflareNames(t *testing.T) {
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	t.Setenv("CF_TOKEN", cfToken)
	t.Setenv("NO_COLOR", "1")
	t.Setenv(cloudflare.EnvAPIURL, "")
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000}
	})
	var ids []string
	for _, zone := range disownNameZones {
		zone = strings.TrimSuffix(zone, ".")
		id := cf.AddZone(zone)
		ids = append(ids, id)
		for _, r := range []cftest.Record{
			{Name: "www." + zone, Type: "A", Content: "192.0.2.1", TTL: 300, Comment: cloudflare.Marker("old")},
			{Name: "hand." + zone, Type: "A", Content: "192.0.2.3", TTL: 300, Comment: "made by hand"},
		} {
			if _, err := cf.AddRecord(id, r); err != nil {
				t.Fatalf("AddRecord %+v: %v", r, err)
			}
		}
	}
	snapshot := func() string {
		var all []string
		for _, id := range ids {
			for _, r := range cf.Records(id) {
				all = append(all, r.Name+" "+r.Type+" "+r.Content+" comment="+r.Comment)
			}
		}
		return strings.Join(all, "\n")
	}
	before := snapshot()
	requests := func() int {
		n := 0
		for _, v := range cf.Counts() {
			n += v
		}
		cf.ResetCounts()
		return n
	}
	for _, c := range disownNameCases {
		t.Run(c.name, func(t *testing.T) {
			requests()
			checkDisownName(t, c, func(args ...string) (int, string, string) {
				var stdout, stderr bytes.Buffer
				code := run(args, &stdout, &stderr)
				return code, stdout.String(), stderr.String()
			}, requests, "disown", "cloudflare", "--token-env", "CF_TOKEN", "--api-url", cf.URL)
			if got := snapshot(); got != before {
				t.Errorf("records changed:\n%s\nwant\n%s", got, before)
			}
		})
	}
}

// TestDisownPowerDNSByProvider: --provider names the server as site.cue
// declares it (url, server id, API key), in place of --url; a name
// site.cue does not declare, one of the other kind, or --provider beside
// the flags it stands for is refused before anything is read.
func TestDisownPowerDNSByProvider(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "gone.example.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("old")}}})
	// The key is in a variable of site.cue's choosing, not the
	// --api-key-env default.
	t.Setenv("OPS_PDNS_KEY", srv.APIKey)
	t.Setenv("PDNS_API_KEY", "")
	config := filepath.Join(writeSpecs(t, siteSrc(pdnsProvider("pdns", srv.URL, "OPS_PDNS_KEY", "off")+
		cfProvider("cf", "http://127.0.0.1:1", `{env: "CF_TOKEN"}`)), map[string]string{}), "site.cue")

	code, out, errOut := siteRun(t, srv, "disown", "powerdns", "gone.example.test", "--provider", "pdns", "--config", config)
	if code != exitGated || !strings.Contains(out, "  - www.gone.example.test. A (tenant old)") {
		t.Fatalf("disown --provider pdns: exit %d, want 3 and the marker listed\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = siteRun(t, srv, "disown", "powerdns", "gone.example.test", "--provider", "pdns", "--config", config, "--ack", "GATE-DNS-DISOWN")
	if code != exitOK || !strings.Contains(out, "removed site's owner marker from 1 record set") {
		t.Fatalf("disown --provider pdns --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"misspelt", []string{"--provider", "pnds"},
			"site: --provider pnds: " + config + " declares no provider pnds: did you mean pdns? (its PowerDNS providers: pdns)"},
		{"of the other kind", []string{"--provider", "cf"},
			"site: --provider cf: provider cf in " + config + " is a Cloudflare provider: site disown cloudflare gone.example.test --provider cf"},
		{"beside --url", []string{"--provider", "pdns", "--url", srv.URL},
			"site: --provider pdns and --url both say where the server is: give one (--provider takes url, server and api_key from site.cue)"},
		{"beside --api-key-env", []string{"--provider", "pdns", "--api-key-env", "X"},
			"site: --provider pdns and --api-key-env both say where the server is: give one"},
		{"neither", nil,
			"site: name the server: --provider NAME (a provider site.cue declares) or --url URL: site disown powerdns gone.example.test --provider pdns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.ResetRequests("")
			srv.ResetRequests(zone)
			args := append([]string{"disown", "powerdns", "gone.example.test", "--config", config}, tc.args...)
			code, out, errOut := siteRun(t, srv, args...)
			if code != exitError || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("site %s: exit %d, stdout %q\nstderr:\n%s\nwant exit 1 and stderr holding:\n%s", strings.Join(args, " "), code, out, errOut, tc.want)
			}
			if n := srv.Requests("").GET + srv.Requests(zone).GET; n != 0 {
				t.Errorf("site %s was refused but sent %d requests", strings.Join(args, " "), n)
			}
		})
	}
}

// TestDisownCloudflareByProviderVault: a provider whose token site.cue
// keeps in a Vault store is read from it, as diff and apply read it.
func TestDisownCloudflareByProviderVault(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	if _, err := cs.cf.AddRecord(cs.zoneID, cftest.Record{Name: "old.sjc.example.net", Type: "TXT", Content: `"x"`, TTL: 300, Comment: cloudflare.Marker("sjc")}); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(filepath.Dir(sjcFile(t, sjcLike(), []string{cs.vault.URL}, cs.cf.URL)), "site.cue")
	code, out, errOut := cs.site(t, "disown", "cloudflare", "sjc.example.net", "--provider", "cf", "--config", config, "--ack", "GATE-DNS-DISOWN")
	if code != exitOK || !strings.Contains(out, "removed site's owner marker from 1 record of zone sjc.example.net.") {
		t.Fatalf("disown cloudflare --provider cf: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, cfToken) {
		t.Errorf("disown printed the token:\n%s%s", out, errOut)
	}
	// A store that does not answer says so, and what was tried; there
	// are no steps to defer, so GATE-SECRET-UNREACHABLE is no advice.
	down := closedPort(t)
	config = filepath.Join(filepath.Dir(sjcFile(t, sjcLike(), []string{down}, cs.cf.URL)), "site.cue")
	code, out, errOut = cs.site(t, "disown", "cloudflare", "sjc.example.net", "--provider", "cf", "--config", config)
	if code != exitError || !strings.Contains(errOut, "site: --provider cf: its token is in Vault store bao, which could not be read: ") ||
		!strings.Contains(errOut, "tried "+down) || strings.Contains(errOut, "GATE-SECRET-UNREACHABLE") {
		t.Errorf("disown with the store down: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

package main

import (
	"bytes"
	"fmt"
	"net"
	"sort"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/vault/vaulttest"
)

// These tests reproduce INCIDENTS.md §1 through the site command, with
// the fake Cloudflare (cftest: the real service cannot be reached from
// CI) and a real Vault dev server (vaulttest.StartDev). Nothing here dials an address
// outside loopback: the "first address that does not answer" is a
// closed loopback port.

const (
	cfToken = "cf-tok-SECRET-4b9d1f"
	// Not "hvs.…": Vault refuses a chosen token ID with its own prefix.
	vaultToken = "vault-SECRET-77ac"
)

// coldStart is one test's servers and environment.
type coldStart struct {
	cf     *cftest.Server
	vault  *vaulttest.Dev
	zoneID string
	// outputs collects everything site printed, for the secrecy check.
	outputs *bytes.Buffer
}

func newColdStart(t *testing.T, zone string) *coldStart {
	t.Helper()
	cs := &coldStart{cf: cftest.New(cfToken), vault: vaulttest.StartDev(t, vaultToken), outputs: &bytes.Buffer{}}
	t.Cleanup(cs.cf.Close)
	cs.zoneID = cs.cf.AddZone(zone)
	cs.vault.Put("secret", "dns/cloudflare", map[string]any{"token": cfToken})
	t.Setenv("VAULT_TOKEN", vaultToken)
	t.Setenv("NO_COLOR", "1")
	// The operator's files name the addresses and api_url; clear the
	// overrides a developer's shell might hold.
	t.Setenv("VAULT_ADDR", "")
	t.Setenv("SITE_VAULT_ADDRS", "")
	t.Setenv(cloudflare.EnvAPIURL, "")
	// The production driver keeps Cloudflare's 4 requests per second;
	// the fake needs no such courtesy.
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000}
	})
	return cs
}

// site runs the command in process and keeps its output.
func (cs *coldStart) site(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	fmt.Fprintf(cs.outputs, "$ site %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return code, stdout.String(), stderr.String()
}

// records lists the fake zone as "name type content" lines.
func (cs *coldStart) records() []string {
	var out []string
	for _, r := range cs.cf.Records(cs.zoneID) {
		out = append(out, r.Name+" "+r.Type+" "+r.Content)
	}
	sort.Strings(out)
	return out
}

// closedPort returns a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// sjcSite is the operator's file of a cold start: the store bao at addrs,
// holding the token of provider cf on the fake Cloudflare at cfURL, and
// host kvm1 (qemu:///system); tenant sjc may use them, lab too (its
// token from the environment).
func sjcSite(addrs []string, cfURL string) string {
	q := make([]string, len(addrs))
	for i, a := range addrs {
		q[i] = fmt.Sprintf("%q", a)
	}
	return siteSrc(`vaults: bao: {addrs: [`+strings.Join(q, ", ")+`], mount: "secret", token: env: "VAULT_TOKEN"}
`+cfProvider("cf", cfURL, `{vault: {vault: "bao", path: "dns/cloudflare", key: "token"}}`)+
		cfProvider("labcf", cfURL, `{env: "LAB_CF_TOKEN"}`)+`hosts: kvm1: uri: "qemu:///system"
`,
		grant{tenant: "sjc", domains: []string{"sjc.example.net"}, providers: []string{"cf"}, hosts: []string{"kvm1"}},
		grant{tenant: "lab", domains: []string{"lab.example.net"}, providers: []string{"labcf"}})
}

// sjcFile writes tenant sjc's src beside sjcSite(addrs, cfURL) and
// returns its path.
func sjcFile(t *testing.T, src string, addrs []string, cfURL string) string {
	t.Helper()
	return writeSpec(t, sjcSite(addrs, cfURL), "sjc.cue", src)
}

// sjcLike is a cold-start tenant: DNS in Cloudflare (provider cf), whose
// token the operator keeps in the store bao.
func sjcLike() string {
	return `package tenants

tenants: sjc: {
	domain: "sjc.example.net"
	dns: zones: "sjc.example.net": {
		provider: "cf"
		ttl: 300
		records: {
			"@": MX: [{priority: 10, host: "mx.example.org."}]
			"@": TXT: ["v=spf1 mx -all"]
			keys: A: ["203.0.113.10"]
			"forge.sjc.example.net.": A: ["203.0.113.20"]
			"*.apps": A: ["203.0.113.11"]
			www: CNAME: "forge.sjc.example.net."
		}
	}
}
`
}

var sjcRecords = []string{
	"*.apps.sjc.example.net A 203.0.113.11",
	"forge.sjc.example.net A 203.0.113.20",
	"keys.sjc.example.net A 203.0.113.10",
	"sjc.example.net MX mx.example.org",
	`sjc.example.net TXT "v=spf1 mx -all"`,
	"www.sjc.example.net CNAME forge.sjc.example.net",
}

func TestIncident1_UnreachableSecretBlocksWithGate(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	libvirtTestHost(t)
	labZone := cs.cf.AddZone("lab.example.net")
	a, b := closedPort(t), closedPort(t)
	// The tenant's network is another phase, independent of the secret.
	src := strings.Replace(sjcLike(), "\tdns: zones:",
		"\tnetworks: \"inc1-lan\": {host: \"kvm1\", cidr: \"10.77.9.0/24\", autostart: true}\n\tdns: zones:", 1)
	// An independent branch in the DNS phase: another tenant whose
	// zone's token comes from the environment.
	t.Setenv("LAB_CF_TOKEN", cfToken)
	lab := `package tenants

tenants: lab: {
	domain: "lab.example.net"
	dns: zones: "lab.example.net": {
		provider: "labcf"
		records: www: A: ["192.0.2.80"]
	}
}
`
	dir := writeSpecs(t, sjcSite([]string{a, b}, cs.cf.URL), map[string]string{"sjc.cue": src, "lab.cue": lab})

	code, out, errOut := cs.site(t, "apply", dir)
	if code != exitGated {
		t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitGated, out, errOut)
	}
	all := out + errOut
	for _, want := range []string{a, b, "connection refused", "GATE-SECRET-UNREACHABLE"} {
		if !strings.Contains(all, want) {
			t.Errorf("output does not mention %q:\n%s", want, all)
		}
	}
	if n := cs.cf.Count(cftest.EpBatch); n != 0 {
		t.Errorf("got %d batch calls before the gate was acknowledged, want 0", n)
	}

	code, out, errOut = cs.site(t, "apply", "--ack", "GATE-SECRET-UNREACHABLE", dir)
	if code != exitOK {
		t.Fatalf("apply --ack exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, "deferred") {
		t.Errorf("output does not say the DNS step was deferred:\n%s%s", out, errOut)
	}
	if got := cs.records(); len(got) != 0 {
		t.Errorf("the deferred zone was written: %v", got)
	}
	if got := cs.cf.Records(labZone); len(got) != 1 || got[0].Content != "192.0.2.80" {
		t.Errorf("the independent zone was not applied: %+v", got)
	}
	// The network phase ran: a diff of the network alone is converged.
	code, out, errOut = cs.site(t, "diff", "--only", "network", "--detailed-exitcode", dir)
	if code != exitOK || !strings.Contains(out, "No changes.") {
		t.Errorf("the network was not created: diff exit %d\n%s%s", code, out, errOut)
	}
	// diff stops at the unread secret's gate unless told to defer it,
	// as apply did: exit 3, as apply's.
	if code, out, errOut = cs.site(t, "diff", dir); code != exitGated {
		t.Errorf("diff without --ack: exit %d, want %d\n%s%s", code, exitGated, out, errOut)
	}
	code, out, errOut = cs.site(t, "diff", "--ack", "GATE-SECRET-UNREACHABLE", dir)
	if code != exitOK || !strings.Contains(strings.ToLower(out), "deferred") {
		t.Errorf("diff --ack GATE-SECRET-UNREACHABLE: exit %d, want 0 with the DNS step deferred\n%s%s", code, out, errOut)
	}
}

func TestIncident1_ExistingRecordsAreNot81053(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := sjcFile(t, sjcLike(), []string{cs.vault.URL}, cs.cf.URL)
	// Created by hand before site's first apply, as the operator did in
	// the incident: one identical to the spec, one different.
	same, err := cs.cf.AddRecord(cs.zoneID, cftest.Record{Name: "keys.sjc.example.net", Type: "A", Content: "203.0.113.10", TTL: 300})
	if err != nil {
		t.Fatal(err)
	}
	other, err := cs.cf.AddRecord(cs.zoneID, cftest.Record{Name: "forge.sjc.example.net", Type: "A", Content: "192.0.2.99", TTL: 300, Comment: "by hand"})
	if err != nil {
		t.Fatal(err)
	}

	code, out, errOut := cs.site(t, "diff", file)
	if code != exitOK {
		t.Fatalf("diff exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"# dns/sjc.example.net.", "keys A", "forge A", "GATE-DNS-OVERWRITE", "adopt"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff does not mention %q:\n%s", want, out)
		}
	}
	code, out, errOut = cs.site(t, "apply", file)
	if code != exitGated || !strings.Contains(out+errOut, "--ack GATE-DNS-OVERWRITE") {
		t.Fatalf("apply exit %d, want %d naming --ack GATE-DNS-OVERWRITE\n%s%s", code, exitGated, out, errOut)
	}
	if n := cs.cf.Count(cftest.EpBatch); n != 0 {
		t.Errorf("got %d batches before the gate was acknowledged, want 0", n)
	}
	code, out, errOut = cs.site(t, "apply", "--ack", "GATE-DNS-OVERWRITE", "--yes", file)
	if code != exitOK {
		t.Fatalf("apply --ack exit %d\n%s%s", code, out, errOut)
	}
	if got := cs.records(); strings.Join(got, "\n") != strings.Join(sjcRecords, "\n") {
		t.Errorf("zone:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(sjcRecords, "\n"))
	}
	ids := map[string]string{}
	for _, r := range cs.cf.Records(cs.zoneID) {
		ids[r.Name+" "+r.Type] = r.ID
		if r.Comment != cloudflare.Marker("sjc") {
			t.Errorf("%s %s: comment %q, want the owner marker", r.Name, r.Type, r.Comment)
		}
	}
	// No create was sent for the existing records: they keep their ids.
	if ids["keys.sjc.example.net A"] != same || ids["forge.sjc.example.net A"] != other {
		t.Errorf("existing records were replaced instead of adopted/updated in place: %v", ids)
	}
	if n := cs.cf.Count(cftest.EpCreate); n != 0 {
		t.Errorf("got %d single creates, want 0", n)
	}
	if code, out, _ := cs.site(t, "diff", "--detailed-exitcode", file); code != exitOK {
		t.Errorf("not converged: exit %d\n%s", code, out)
	}
}

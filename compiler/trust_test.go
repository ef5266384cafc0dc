package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/site-tools/site/compiler/model"
)

// The tests of issue 9, "the contract": a tenant's file arrives as a
// pull request, so nothing in it may reach past what the operator's
// site.cue grants. Each names an attack that passed vet before site.cue
// existed.

// diagAt returns the messages of diags whose path starts with prefix.
func diagAt(diags Diagnostics, prefix string) []string {
	var out []string
	for _, d := range diags {
		if strings.HasPrefix(d.Path, prefix) {
			out = append(out, d.Msg)
		}
	}
	return out
}

// TestTrust_ExfiltrationFieldsAreVetErrors: a tenant naming its own
// api_url, PowerDNS url, Vault addrs or an env var received the
// runner's secrets. Those fields are errors now, at the field, saying
// where they live.
func TestTrust_ExfiltrationFieldsAreVetErrors(t *testing.T) {
	tests := []struct{ archive, path, want string }{
		{"trust_old_language", "tenants.evil.secrets", "operator's site.cue (vaults:"},
		{"trust_old_language", `tenants.evil.dns.zones."evil.test".provider`, "the cloudflare URL and credential live in the operator's site.cue"},
		{"trust_old_language", `tenants.evil.dns.zones."a.evil.test".provider`, "the powerdns URL and credential live in the operator's site.cue"},
		{"trust_host_uri", "tenants.evil.networks.lan.host", "want the name of a host that site.cue grants this tenant"},
		{"trust_host_uri", "tenants.evil.vms.web.host", "want the name of a host that site.cue grants this tenant"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			msgs := diagAt(loadCase(t, tt.archive), tt.path)
			if len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
				t.Errorf("at %s: got %q, want one error containing %q", tt.path, msgs, tt.want)
			}
		})
	}
}

// TestTrust_NameTheft: tenant evil (domain evil.test) declared zones of
// victim.test, the TLD test, com and in-addr.arpa, and vet passed.
func TestTrust_NameTheft(t *testing.T) {
	diags := loadCase(t, "trust_name_theft")
	for _, zone := range []string{`"_acme-challenge.victim.test"`, `"login.victim.test"`, "test", "com", `"in-addr.arpa"`, `"0.0.10.in-addr.arpa"`} {
		if msgs := diagAt(diags, "tenants.evil.dns.zones."+zone); len(msgs) != 1 {
			t.Errorf("zone %s: got %q, want one error", zone, msgs)
		}
	}
	for _, prefix := range []string{"tenants.victim", `tenants.evil.dns.zones."evil.test"`} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is the tenant's own, got errors %q", prefix, msgs)
		}
	}
}

// TestTrust_Impersonation: a file declaring tenants: victim, applied on
// its own, deleted victim's records without a gate. A tenant file holds
// only the tenant it is named after, whether it is loaded with the
// others or on its own.
func TestTrust_Impersonation(t *testing.T) {
	loadCase(t, "trust_impersonation")
	dir := extract(t, "testdata/rules/trust_impersonation.txtar")
	spec, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "evil.cue")})
	var diags Diagnostics
	if !errors.As(err, &diags) || spec != nil {
		t.Fatalf("Load of evil.cue alone: got %v, want Diagnostics", err)
	}
	if msgs := diagAt(diags, "tenants.victim"); len(msgs) != 1 || !strings.Contains(msgs[0], "file evil.cue declares tenant victim") {
		t.Errorf("got %q, want the file-name error", msgs)
	}
}

// TestTrust_NotGranted: a tenant uses only the providers and hosts
// site.cue grants it, and a tenant site.cue does not declare is refused.
func TestTrust_NotGranted(t *testing.T) {
	diags := loadCase(t, "trust_not_granted")
	for path, want := range map[string]string{
		`tenants.evil.dns.zones."evil.test".provider`:   `provider "victimcf" is not granted to tenant evil`,
		`tenants.evil.dns.zones."a.evil.test".provider`: `provider "nosuch" is not granted to tenant evil`,
		"tenants.evil.networks.lan.host":                `host "prod" is not granted to tenant evil`,
		"tenants.evil.vms.web.host":                     `host "prod" is not granted to tenant evil`,
		"tenants.stranger":                              "tenant stranger is not declared in the operator's file",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
}

// TestTrust_NeighboursAlwaysLoaded: the checks between tenants see
// every tenant file beside the ones named, so converging one file
// cannot miss a clash with a neighbour; the model holds only the
// tenants named.
func TestTrust_NeighboursAlwaysLoaded(t *testing.T) {
	dir := extract(t, "testdata/rules/vm_network_two_tenants.txtar")
	_, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "b.cue")})
	if err == nil || !strings.Contains(err.Error(), "VM web on host qemu:///system is declared by tenants a and b") {
		t.Fatalf("Load of b.cue alone: got %v, want the clash with a.cue", err)
	}
	dir = extract(t, "testdata/valid/canonical.txtar")
	spec, err := Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "alpha.cue")})
	if err != nil {
		t.Fatal(err)
	}
	if len(spec.Tenants) != 1 || spec.Tenants[0].Name != "alpha" {
		t.Errorf("got tenants %v, want only alpha", spec.Tenants)
	}
}

// TestTrust_PublicSuffix pins the public-suffix test the grants use.
func TestTrust_PublicSuffix(t *testing.T) {
	for name, want := range map[string]bool{
		"com.": true, "test.": true, "co.uk.": true, "in-addr.arpa.": true, "github.io.": true,
		"example.com.": false, "victim.test.": false, "0.0.10.in-addr.arpa.": false, "sjc.example.net.": false,
	} {
		if got := isPublicSuffix(name); got != want {
			t.Errorf("isPublicSuffix(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestTrust_OperatorCarvesNames: what the operator's file says on
// purpose is allowed, and nothing more: a delegated name below another
// tenant's domain belongs to the delegate alone, and a public suffix is
// a tenant's only with allow_public_suffix.
func TestTrust_OperatorCarvesNames(t *testing.T) {
	const site = `package site
providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}
tenants: {
	victim: {domains: ["victim.test"], providers: ["pdns"]}
	acme: {domains: ["evil.test"], delegate: ["_acme-challenge.victim.test"], providers: ["pdns"]}
	arpa: {domains: ["in-addr.arpa"], allow_public_suffix: true, providers: ["pdns"]}
}
`
	zone := func(tenant, domain, name string) string {
		return "package tenants\ntenants: " + tenant + ": {domain: \"" + domain + "\", dns: zones: \"" + name + "\": provider: \"pdns\"}\n"
	}
	tests := []struct {
		name, tenant, src, want string // want "" when it loads
	}{
		{"the delegate holds the delegated name", "acme", zone("acme", "evil.test", "_acme-challenge.victim.test"), ""},
		{"the delegate holds nothing else of the domain", "acme", zone("acme", "evil.test", "login.victim.test"), "which site.cue grants to tenant victim"},
		{"the domain's tenant loses the delegated name", "victim", zone("victim", "victim.test", "x._acme-challenge.victim.test"), "which site.cue grants to tenant acme"},
		{"the domain's tenant keeps the rest", "victim", zone("victim", "victim.test", "victim.test"), ""},
		{"a public suffix allowed", "arpa", zone("arpa", "in-addr.arpa", "in-addr.arpa"), ""},
		{"below an allowed public suffix", "arpa", zone("arpa", "in-addr.arpa", "0.77.10.in-addr.arpa"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSource("site.cue", []byte(site), tt.tenant+".cue", []byte(tt.src))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want it to load", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestTrust_SymlinkedTenantFile: a pull request that adds
// tenants/evil.cue as a symbolic link to a file of the runner
// (~/.vault-token, a .env) had site read that file when a check named
// the changed files, and its syntax errors quoted the file's words
// (found 'IDENT' hvs_...). Found by ./tenants/..., the link was skipped
// without a word, so vet passed a file it never read. A tenant file is
// read only as a regular file, and a link where one is expected is an
// error that quotes nothing of its target.
func TestTrust_SymlinkedTenantFile(t *testing.T) {
	const secret = "hvs_RUNNERSECRET"
	root := t.TempDir()
	outside := filepath.Join(root, "runner-token")
	tenants := filepath.Join(root, "repo", "tenants")
	config := filepath.Join(root, "repo", ConfigName)
	for path, src := range map[string]string{
		outside:                         "token " + secret + "\n",
		config:                          "package site\ntenants: a: domains: [\"a.test\"]\n",
		filepath.Join(tenants, "a.cue"): "package tenants\ntenants: a: domain: \"a.test\"\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evil := filepath.Join(tenants, "evil.cue")
	if err := os.Symlink(outside, evil); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{evil}, {tenants + "/..."}, {tenants}} {
		t.Run(strings.Join(paths, " "), func(t *testing.T) {
			_, err := Load(config, paths)
			var diags Diagnostics
			if !errors.As(err, &diags) {
				t.Fatalf("got %v, want Diagnostics", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the diagnostics quote the link's target:\n%v", err)
			}
			if len(diags) != 1 || diags[0].Pos.File != evil || !strings.Contains(diags[0].Msg, "symbolic link") {
				t.Errorf("got %v, want one error at %s saying it is a symbolic link", err, evil)
			}
		})
	}
}

// TestTrust_VolumeTheft: a tenant's VM named another tenant's disk
// volume on a shared host as its own disk (its guest got the victim's
// data, read and write) or as the base of its disk (an overlay reads
// it, a clone copies it), and vet passed. A disk volume belongs to the
// tenant whose VM declares it (which of two came first is the live
// system's to say, so both are reported); a base shared by tenants is
// an image.
func TestTrust_VolumeTheft(t *testing.T) {
	diags := loadCase(t, "trust_volume_theft")
	for path, want := range map[string]string{
		"tenants.evil.vms.attach.disks.0.name":  "volume default/db-data on host qemu:///system is a disk of tenant victim's VM db",
		"tenants.evil.vms.overlay.disks.0.base": "volume default/db-root on host qemu:///system is a disk of tenant victim's VM db",
		"tenants.evil.vms.copy.disks.0.base":    "volume default/db-data on host qemu:///system is a disk of tenant victim's VM db",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, prefix := range []string{"tenants.victim.vms.db.disks.0", "tenants.evil.vms.ok"} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is the tenant's own, got errors %q", prefix, msgs)
		}
	}
	if len(diags) != 4 {
		t.Errorf("got %d diagnostics, want 4 (the victim's db-data too):\n%v", len(diags), diags)
	}
}

// TestTrust_NetworkOverlap: a tenant's network on a shared host with
// the prefix of another tenant's (or one inside it) passed vet; the
// network that started first took the addresses, and libvirt refused
// to start the other. Networks on one host never overlap, and each
// of two that do is reported.
func TestTrust_NetworkOverlap(t *testing.T) {
	diags := loadCase(t, "trust_network_overlap")
	for path, want := range map[string]string{
		"tenants.evil.networks.same":   "network same (10.88.0.0/24) on host qemu:///system overlaps tenant victim's network lan (10.88.0.0/24)",
		"tenants.evil.networks.inside": "network inside (10.88.0.128/25) on host qemu:///system overlaps tenant victim's network lan (10.88.0.0/24)",
		"tenants.victim.networks.lan":  "network lan (10.88.0.0/24) on host qemu:///system overlaps tenant evil's network",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, path := range []string{"tenants.evil.networks.elsewhere", "tenants.evil.networks.apart"} {
		if msgs := diagAt(diags, path); len(msgs) > 0 {
			t.Errorf("%s overlaps nothing on its host, got %q", path, msgs)
		}
	}
}

// TestTrust_DelegatedNames: site.cue delegates shop.parent.test to
// tenant shop, and tenant parent, who holds parent.test, wrote records
// at and below it in its own zone (or published a VM's name there), and
// vet passed: the parent's server answered for the shop's names, at once
// while the shop's zone did not exist yet. The parent keeps the
// delegation: NS and DS at the delegated name and its name servers'
// addresses (glue).
func TestTrust_DelegatedNames(t *testing.T) {
	diags := loadCase(t, "trust_delegated_names")
	for path, want := range map[string]string{
		`tenants.parent.dns.zones."parent.test".records."www.shop".A`: "www.shop.parent.test. A lies in shop.parent.test., which site.cue grants to tenant shop",
		`tenants.parent.dns.zones."parent.test".records."ns2.shop".A`: "ns2.shop.parent.test. A lies in shop.parent.test., which site.cue grants to tenant shop",
		`tenants.parent.vms.web.publish.names.1`:                      "pay.shop.parent.test. A lies in shop.parent.test., which site.cue grants to tenant shop",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	if len(diags) != 3 {
		t.Errorf("got %d diagnostics, want 3 (the delegation, its glue and the parent's own names pass):\n%v", len(diags), diags)
	}
}

// TestTrust_BridgeNotGranted: a bridged network (mode: "bridge") named
// any bridge of its host, and vet passed: a tenant put its VMs on the
// host's management LAN, on another tenant's LAN bridge, or on the
// virbrN of another tenant's network. A tenant joins only the host
// bridges site.cue grants it, on the host they are granted on.
func TestTrust_BridgeNotGranted(t *testing.T) {
	diags := loadCase(t, "trust_bridge_not_granted")
	for path, want := range map[string]string{
		"tenants.evil.networks.mgmt.bridge":      `bridge "br0" on host kvm1 is not granted to tenant evil in site.cue`,
		"tenants.evil.networks.virbr.bridge":     `bridge "virbr1" on host kvm1 is not granted to tenant evil in site.cue`,
		"tenants.evil.networks.theft.bridge":     `bridge "br-victim" on host kvm1 is not granted to tenant evil in site.cue`,
		"tenants.evil.networks.elsewhere.bridge": `bridge "br-dmz" on host kvm2 is not granted to tenant evil in site.cue`,
		"tenants.plain.networks.uplink.bridge":   `bridge "br0" on host kvm1 is not granted to tenant plain in site.cue`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, prefix := range []string{"tenants.victim", "tenants.evil.networks.dmz"} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is granted, got errors %q", prefix, msgs)
		}
	}
	if len(diags) != 5 {
		t.Errorf("got %d diagnostics, want 5:\n%v", len(diags), diags)
	}
}

// TestTrust_DelegatedPTR: a VM's ptr: true put the PTR of its address
// at a reverse name site.cue delegates to another tenant, and vet
// passed; the PTR of an address of its own stays.
func TestTrust_DelegatedPTR(t *testing.T) {
	diags := loadCase(t, "trust_delegated_ptr")
	if msgs := diagAt(diags, "tenants.acme.vms.evil.publish.ptr"); len(msgs) != 1 || !strings.Contains(msgs[0], "5.2.0.192.in-addr.arpa. PTR lies in 5.2.0.192.in-addr.arpa., which site.cue grants to tenant shop") {
		t.Errorf("got %q, want the PTR refused as shop's", msgs)
	}
	if len(diags) != 1 {
		t.Errorf("got %d diagnostics, want 1 (fine's PTR is acme's):\n%v", len(diags), diags)
	}
}

// TestTrust_DelegatedNamesCovered: a parent's record at a name of its
// own answered for a name site.cue delegates to another tenant below
// it, and vet passed: a DNAME above the delegated name redirects it, a
// wildcard above it answers for it while the parent does not delegate
// it (NS at the name), at once while the other tenant's zone does not
// exist yet.
func TestTrust_DelegatedNamesCovered(t *testing.T) {
	diags := loadCase(t, "trust_delegated_cover")
	for path, want := range map[string]string{
		`tenants.acme.dns.zones."example.test".records."*".A`:      "wildcard *.example.test. answers for a.shop.example.test., c.web.example.test., x.pub.example.test., which site.cue grants to another tenant, while this zone does not delegate it",
		`tenants.acme.dns.zones."example.test".records.shop.DNAME`: "the DNAME at shop.example.test. redirects every name below it, and a.shop.example.test. lies below it",
		`tenants.acme.dns.zones."example.test".records."*.web".A`:  "wildcard *.web.example.test. answers for c.web.example.test.",
		`tenants.acme.vms.web.publish.names.0`:                     "wildcard *.pub.example.test. answers for x.pub.example.test.",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	if len(diags) != 4 {
		t.Errorf("got %d diagnostics, want 4 (b is delegated, example.org's wildcard covers nothing granted):\n%v", len(diags), diags)
	}
}

// TestTrust_DelegatedBlock: site.cue grants tenant shop the RFC 2317
// block 0/26.2.0.192.in-addr.arpa, which is not a subdomain of the
// addresses it covers, and tenant acme, who holds 2.0.192.in-addr.arpa,
// wrote a PTR (or another CNAME, or a record below) at an address of the
// block, a wildcard answering for addresses without their CNAME, a zone
// at one, or had a VM's ptr: true write one, and vet passed: acme's
// server answered for shop's addresses. At an address of the block the
// /24's zone holds only the CNAME into it. The block spelt FIRST-LAST
// (0-63, or 10-20, which no prefix spells) passed all of that even
// after BASE/LEN was checked: it is the same block.
func TestTrust_DelegatedBlock(t *testing.T) {
	const rev = `tenants.acme.dns.zones."2.0.192.in-addr.arpa".records.`
	cases := []struct {
		archive, block string
		// a zone acme declares at an address of a block in 3.0.192, and
		// what vet says of it
		zone, zoneWant string
	}{
		{"trust_delegated_block", "0/26", `tenants.acme.dns.zones."1.3.0.192.in-addr.arpa"`,
			"zone 1.3.0.192.in-addr.arpa. is the reverse name of 192.0.3.1, in the RFC 2317 block 0/30.3.0.192.in-addr.arpa., which site.cue grants to tenant shop"},
		{"trust_delegated_range", "0-63", `tenants.acme.dns.zones."15.3.0.192.in-addr.arpa"`,
			"zone 15.3.0.192.in-addr.arpa. is the reverse name of 192.0.3.15, in the RFC 2317 block 10-20.3.0.192.in-addr.arpa., which site.cue grants to tenant shop"},
	}
	for _, c := range cases {
		t.Run(c.block, func(t *testing.T) {
			diags := loadCase(t, c.archive)
			blk := c.block + ".2.0.192.in-addr.arpa."
			tests := []struct{ path, want string }{
				{rev + `5.PTR`, "5.2.0.192.in-addr.arpa. PTR is the reverse name of 192.0.2.5, in the RFC 2317 block " + blk + ", which site.cue grants to tenant shop: zone 2.0.192.in-addr.arpa. may hold at 5.2.0.192.in-addr.arpa. only the CNAME into the block, to 5." + blk},
				{rev + `6.CNAME`, "6.2.0.192.in-addr.arpa. CNAME is the reverse name of 192.0.2.6, in the RFC 2317 block " + blk},
				{rev + `7.CNAME`, "only the CNAME into the block, to 7." + blk},
				{rev + `"x.9".TXT`, "x.9.2.0.192.in-addr.arpa. TXT lies below 9.2.0.192.in-addr.arpa., the reverse name of 192.0.2.9, in the RFC 2317 block " + blk},
				{rev + `"*".PTR`, "wildcard *.2.0.192.in-addr.arpa. answers for the reverse names of 192.0.2.0, 192.0.2.3 to 192.0.2.63 (block " + blk + ", tenant shop), which have no CNAME into their block in this zone"},
				{"tenants.acme.vms.evil.publish.ptr", "10.2.0.192.in-addr.arpa. PTR is the reverse name of 192.0.2.10, in the RFC 2317 block " + blk + ", which site.cue grants to tenant shop"},
				{c.zone, c.zoneWant},
			}
			for _, tt := range tests {
				if msgs := diagAt(diags, tt.path); len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
					t.Errorf("at %s: got %q, want one error containing %q", tt.path, msgs, tt.want)
				}
			}
			// The delegation, the CNAMEs into the blocks, the addresses
			// outside them, a wildcard beside every address's CNAME, the
			// fine VM's PTR and all of shop's (its VM's PTR in its block's
			// zone) pass.
			if len(diags) != len(tests) {
				t.Errorf("got %d diagnostics, want %d:\n%v", len(diags), len(tests), diags)
			}
		})
	}
}

// TestTrust_OutputInjection: vet's text output quoted a tenant's value
// as written, so a relative MX host of "h\n::error::forged" printed a
// line of its own, which the log of a pull-request check runs as a
// workflow command, and an ANSI escape drove the terminal; volume, pool
// and mailbox names passed vet with any bytes in them and reached the
// plan the same way (a blank line in a pull request comment started
// Markdown). Now every diagnostic is one line with its control
// characters escaped, and those names are errors.
func TestTrust_OutputInjection(t *testing.T) {
	diags := loadCase(t, "trust_output_injection")
	const zone = `tenants.evil.dns.zones."evil.test".`
	for _, path := range []string{
		zone + "soa.mbox",
		zone + "records.m.MX.0",
		zone + "records.w.CNAME",
		zone + "records.s.SRV.0",
		"tenants.evil.vms.v.disks.0.name",
		"tenants.evil.vms.v.disks.0.base",
		"tenants.evil.vms.v.disks.1.pool",
		"tenants.evil.vms.v.disks.2.name",
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 {
			t.Errorf("at %s: got %q, want one error", path, msgs)
		}
	}
	checkOneLineEach(t, diags)
}

// TestTrust_FileNameInjection: a tenant file's name is the pull
// request's to choose, and positions printed it as written.
func TestTrust_FileNameInjection(t *testing.T) {
	dir := t.TempDir()
	site := "package site\n\ntenants: x: domains: [\"x.test\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	name := "x\n::error::forged\x1b[31m.cue"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("package tenants\n\ntenants: x: domain: \"x.test\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(filepath.Join(dir, "site.cue"), []string{dir})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("Load: got %v, want Diagnostics", err)
	}
	checkOneLineEach(t, diags)
}

// checkOneLineEach fails unless diags render one line each (as text and
// as GitHub workflow commands do) with no control or bidirectional
// formatting character in it.
func checkOneLineEach(t *testing.T, diags Diagnostics) {
	t.Helper()
	lines := strings.Split(diags.Error(), "\n")
	if len(lines) != len(diags) {
		t.Errorf("%d diagnostics printed %d lines:\n%s", len(diags), len(lines), diags.Error())
	}
	for _, l := range lines {
		for _, r := range l {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Errorf("line holds %U: %q", r, l)
				break
			}
		}
	}
}

// TestTrust_DelegationNS: site.cue delegates shop.acme.example to
// tenant shop, whose zone names its name servers at its apex, and
// tenant acme, who writes the delegation in its own zone, named other
// name servers there (its own, or a name of shop's it gave "glue"), or
// gave a name server of shop's another address, and vet passed: every
// resolver then asked acme's choice for shop's names. The delegation
// names only name servers the child zone names at its apex, and its
// glue only addresses the child zone declares at those names; where
// the child's zone is not loaded, or names no apex NS, there is
// nothing to compare.
func TestTrust_DelegationNS(t *testing.T) {
	const site = `package site
providers: pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}
tenants: {
	acme: {domains: ["acme.example"], providers: ["pdns"]}
	shop: {delegate: ["shop.acme.example"], providers: ["pdns"]}
}
`
	const shopRecords = `"@": NS: ["ns1.shop.acme.example.", "ns.example.net."]
		ns1: {A: ["192.0.2.53"], AAAA: ["2001:db8::53"]}
		www: A: ["192.0.2.80"]`
	const delegation = `shop: NS: ["ns1.shop.acme.example.", "ns.example.net."]
		"ns1.shop": {A: ["192.0.2.53"], AAAA: ["2001:db8::53"]}`
	tenant := func(name, domain, zone string) string {
		return "package tenants\ntenants: " + name + ": {domain: \"" + domain + "\", dns: zones: \"" + domain + "\": {provider: \"pdns\"\n" + zone + "}}\n"
	}
	records := func(r string) string { return "records: {\n\t\t" + r + "\n\t}" }
	const (
		nsPath   = `tenants.acme.dns.zones."acme.example".records.shop.NS`
		gluePath = `tenants.acme.dns.zones."acme.example".records."ns1.shop".`
	)
	tests := []struct {
		name, acme, shop string
		shopApart        bool   // shop.cue in another directory, not loaded
		path, want       string // an error at path containing want; "" when it loads
		warn             string // a warning (of a spec that loads) containing warn
		at               string // where the error or warning points in acme.cue, when not ""
	}{
		{name: "the child's name servers and addresses", acme: delegation, shop: shopRecords},
		{name: "another name server", acme: `shop: NS: ["ns.evil.example."]`, shop: shopRecords,
			path: nsPath, at: "acme.cue:5:14", want: `shop.acme.example. NS names ns.evil.example., which tenant shop's zone shop.acme.example. does not name at its apex`},
		{name: "one more name server", acme: `shop: NS: ["ns1.shop.acme.example.", "ns.example.net.", "ns.evil.example."]
		"ns1.shop": A: ["192.0.2.53"]`, shop: shopRecords,
			path: nsPath, at: "acme.cue:5:59", want: `write shop: NS: ["ns.example.net.", "ns1.shop.acme.example."]`},
		{name: "a name of the child's as name server, with glue", acme: `shop: NS: ["www.shop.acme.example."]
		"www.shop": A: ["203.0.113.66"]`, shop: shopRecords,
			path: nsPath, at: "acme.cue:5:14", want: `shop.acme.example. NS names www.shop.acme.example., which tenant shop's zone shop.acme.example. does not name at its apex`},
		{name: "glue with another address", acme: `shop: NS: ["ns1.shop.acme.example.", "ns.example.net."]
		"ns1.shop": A: ["203.0.113.66"]`, shop: shopRecords,
			path: gluePath + "A", at: "acme.cue:6:19", want: `ns1.shop.acme.example. A 203.0.113.66 is glue for the delegation of shop.acme.example., and tenant shop's zone shop.acme.example. declares A 192.0.2.53 there`},
		{name: "glue of a type the child does not declare there", acme: delegation, shop: `"@": NS: ["ns1.shop.acme.example.", "ns.example.net."]
		ns1: A: ["192.0.2.53"]`,
			path: gluePath + "AAAA", at: "acme.cue:6:35", want: `tenant shop's zone shop.acme.example. declares no AAAA at ns1.shop.acme.example.`},
		{name: "glue for a name the child does not declare", acme: `shop: NS: ["ns1.shop.acme.example.", "ns.example.net."]
		"ns1.shop": A: ["192.0.2.53"]`, shop: `"@": NS: ["ns1.shop.acme.example.", "ns.example.net."]`,
			path: gluePath + "A", at: "acme.cue:6:15", want: `tenant shop's zone shop.acme.example. declares no A at ns1.shop.acme.example.`},
		{name: "glue for a name the child's zone ignores", acme: delegation, shop: `"@": NS: ["ns1.shop.acme.example.", "ns.example.net."]
		}
		ignore: [{name: "ns1"}]
		records: {`},
		{name: "fewer name servers", acme: `shop: NS: ["ns.example.net."]`, shop: shopRecords,
			at: "acme.cue:5:9", warn: `shop.acme.example. NS leaves out ns1.shop.acme.example., which tenant shop's zone shop.acme.example. names at its apex`},
		{name: "fewer glue addresses", acme: `shop: NS: ["ns1.shop.acme.example.", "ns.example.net."]
		"ns1.shop": A: ["192.0.2.53"]`, shop: `"@": NS: ["ns1.shop.acme.example.", "ns.example.net."]
		ns1: A: ["192.0.2.53", "192.0.2.54"]`,
			at: "acme.cue:6:15", warn: `ns1.shop.acme.example. A leaves out 192.0.2.54, which tenant shop's zone shop.acme.example. declares there`},
		{name: "the child's zone names no apex NS", acme: `shop: NS: ["ns.evil.example."]`, shop: `www: A: ["192.0.2.80"]`,
			path: nsPath, at: "acme.cue:5:9", want: `tenant shop's zone shop.acme.example. names no name servers at its apex ("@": NS), so this delegation may name none yet`},
		{name: "the child's apex NS written outside site", acme: `shop: NS: ["ns.elsewhere.example."]`, shop: `www: A: ["192.0.2.80"]
		}
		ignore: [{name: "@", type: "NS"}]
		records: {`},
		{name: "the child's file is not loaded", acme: `shop: NS: ["ns.evil.example."]`, shop: shopRecords, shopApart: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			shopDir := dir
			if tt.shopApart {
				shopDir = filepath.Join(dir, "elsewhere")
			}
			for path, src := range map[string]string{
				filepath.Join(dir, "site.cue"):     site,
				filepath.Join(dir, "acme.cue"):     tenant("acme", "acme.example", records(`www: A: ["192.0.2.1"]`+"\n\t\t"+tt.acme)),
				filepath.Join(shopDir, "shop.cue"): tenant("shop", "shop.acme.example", records(tt.shop)),
			} {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var warnings Diagnostics
			// acme's file alone, as a single-tenant run names it: its
			// neighbours are loaded for the checks between tenants.
			_, err := LoadWith(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "acme.cue")},
				Options{Warn: func(d Diagnostics) { warnings = append(warnings, d...) }})
			var diags Diagnostics
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want it to load", err)
			case tt.want != "" && !errors.As(err, &diags):
				t.Fatalf("got %v, want an error at %s containing %q", err, tt.path, tt.want)
			case tt.want != "":
				if msgs := diagAt(diags, tt.path); len(msgs) != 1 || !strings.Contains(msgs[0], tt.want) {
					t.Errorf("at %s: got %q, want one error containing %q\nall: %v", tt.path, msgs, tt.want, err)
				}
				for _, d := range diags {
					if strings.HasPrefix(d.Path, tt.path) && tt.at != "" && !strings.HasSuffix(FormatPos(d.Pos), "/"+tt.at) {
						t.Errorf("error at %s, want %s (the value at fault, else the field)", FormatPos(d.Pos), tt.at)
					}
				}
				return
			}
			switch {
			case tt.warn == "" && len(warnings) > 0:
				t.Errorf("got warnings %v, want none", warnings)
			case tt.warn != "" && (len(warnings) != 1 || !strings.Contains(warnings[0].Msg, tt.warn)):
				t.Errorf("got warnings %v, want one containing %q", warnings, tt.warn)
			case tt.at != "" && !strings.HasSuffix(FormatPos(warnings[0].Pos), "/"+tt.at):
				t.Errorf("warning at %s, want %s (the field)", FormatPos(warnings[0].Pos), tt.at)
			}
		})
	}
}

// TestTrust_NSAboveGrant: site.cue grants tenant acme acme.example and
// 0.192.in-addr.arpa, and tenants shop and blk names below them
// (shop.acme.example, the RFC 2317 block 0/26.2.0.192.in-addr.arpa).
// acme named a name server of its own at its zone's apex, or at a cut
// above the block ("2": NS, or a zone of its own at
// 2.0.192.in-addr.arpa), and vet passed: resolvers that learn a zone's
// name servers from the zone ask those for every name below, shop's
// and blk's included. In a zone holding another tenant's name, the NS
// at the apex and at every cut above that name name only the name
// servers site.cue lists for the zone's provider; NS at the granted
// name itself (the delegation, TestTrust_DelegationNS) and cuts above
// no other tenant's name stay the zone's to choose.
func TestTrust_NSAboveGrant(t *testing.T) {
	site := func(providers string) string {
		return `package site
providers: {
	pdns: powerdns: {url: "http://127.0.0.1:8081", api_key: env: "K"}
	` + providers + `
}
tenants: {
	acme: {domains: ["acme.example", "0.192.in-addr.arpa", "other.example"], providers: ["pdns", "pdns2"]}
	shop: {delegate: ["shop.acme.example"], providers: ["pdns"]}
	blk: {delegate: ["0/26.2.0.192.in-addr.arpa"], providers: ["pdns"]}
}
`
	}
	const (
		listed     = `pdns: nameservers: ["ns1.example.net.", "ns2.example.net."]`
		noDots     = `pdns: nameservers: ["NS1.example.net", "ns2.example.net"]`
		otherLists = `pdns2: {powerdns: {url: "http://127.0.0.1:8082", api_key: env: "K"}, nameservers: ["ns1.example.net."]}`
		pdns2      = `pdns2: powerdns: {url: "http://127.0.0.1:8082", api_key: env: "K"}`
	)
	zone := func(name, provider, records string) string {
		return `"` + name + `": {provider: "` + provider + `", records: {` + records + `}}` + "\n"
	}
	acmeZone := func(records string) string { return zone("acme.example", "pdns", records) }
	revZone := func(records string) string { return zone("0.192.in-addr.arpa", "pdns", records) }
	const (
		apexPath = `tenants.acme.dns.zones."acme.example".records."@".NS`
		revPath  = `tenants.acme.dns.zones."0.192.in-addr.arpa".records.`
		cutPath  = `tenants.acme.dns.zones."2.0.192.in-addr.arpa".records."@".NS`
	)
	tests := []struct {
		name, providers, zones string
		path, want             string // an error at path containing want; "" when it loads
		at                     string // where the error points, when not ""
		related                bool   // the error points at site.cue's nameservers line too
	}{
		{name: "apex NS, no name servers listed", providers: pdns2, zones: acmeZone(`"@": NS: ["ns.evil."]`),
			path: apexPath, at: "acme.cue:3:51", want: `site.cue lists no name servers for provider pdns (providers: pdns: nameservers: [...])`},
		{name: "the site.cue line to write, from the NS written", providers: pdns2, zones: acmeZone(`"@": NS: ["NS2.example.org.", "ns1.example.org."]`),
			path: apexPath, want: `the operator writes providers: pdns: nameservers: ["ns1.example.org.", "ns2.example.org."] in site.cue if those are the name servers that serve provider pdns's zones (they are this NS's, not yet the operator's: check them), or remove this NS`},
		{name: "an empty list of name servers", providers: `pdns: nameservers: []` + "\n" + pdns2, zones: acmeZone(`"@": NS: ["ns.evil."]`),
			path: apexPath, want: `the operator writes providers: pdns: nameservers: ["ns.evil."] in site.cue if`, related: true},
		{name: "apex NS naming another server", providers: listed + "\n" + pdns2, zones: acmeZone(`"@": NS: ["ns1.example.net.", "ns.evil."]`),
			path: apexPath + ".1", at: "acme.cue:3:76", want: `acme.example. NS names ns.evil., which site.cue does not list among provider pdns's name servers (ns1.example.net., ns2.example.net.)`, related: true},
		{name: "a cut above a granted block", providers: listed + "\n" + pdns2, zones: revZone(`"2": NS: ["ns.evil."]`),
			path: revPath + `2.NS.0`, at: "acme.cue:3:62", want: `2.0.192.in-addr.arpa. NS names ns.evil., which site.cue does not list among provider pdns's name servers`, related: true},
		{name: "a cut above a granted block, no name servers listed", providers: pdns2, zones: revZone(`"2": NS: ["ns1.example.net."]`),
			path: revPath + `2.NS`, at: "acme.cue:3:57", want: `which site.cue grants to tenant blk`},
		{name: "the apex of a zone of its own above a granted block", providers: listed + "\n" + pdns2, zones: zone("2.0.192.in-addr.arpa", "pdns", `"@": NS: ["ns.evil."]`),
			path: cutPath + ".0", want: `0/26.2.0.192.in-addr.arpa., which site.cue grants to tenant blk`, related: true},
		{name: "another provider's name servers", providers: otherLists, zones: acmeZone(`"@": NS: ["ns1.example.net."]`),
			path: apexPath, want: `site.cue lists no name servers for provider pdns`},
		{name: "apex NS naming the listed servers", providers: listed + "\n" + pdns2, zones: acmeZone(`"@": NS: ["ns1.example.net.", "ns2.example.net."]`)},
		{name: "listed without trailing dots", providers: noDots + "\n" + pdns2, zones: acmeZone(`"@": NS: ["ns2.example.net.", "ns1.example.net."]`)},
		{name: "some of the listed servers", providers: listed + "\n" + pdns2, zones: revZone(`"@": NS: ["ns2.example.net."], "2": NS: ["ns1.example.net."]`)},
		{name: "the zone's own provider lists them", providers: otherLists, zones: zone("acme.example", "pdns2", `"@": NS: ["ns1.example.net."]`)},
		{name: "a cut above no granted name", providers: pdns2, zones: acmeZone(`sub: NS: ["ns.evil."]`) + revZone(`"3": NS: ["ns.evil."]`)},
		{name: "the delegation at the granted name", providers: pdns2, zones: acmeZone(`shop: NS: ["ns.shop.example."]`) + revZone(`"0/26.2": NS: ["ns.shop.example."]`)},
		{name: "a zone with no other tenant's name below", providers: pdns2, zones: zone("other.example", "pdns", `"@": NS: ["ns.evil."]`)},
		{name: "a listed name that is no host name", providers: `pdns: nameservers: ["*.example.net"]` + "\n" + pdns2, zones: acmeZone(``),
			path: `providers.pdns.nameservers.0`, want: `name server "*.example.net" is a wildcard`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package tenants\ntenants: acme: {domain: \"acme.example\", dns: zones: {\n" + tt.zones + "}}\n"
			config := site(tt.providers)
			_, err := LoadSource("site.cue", []byte(config), "acme.cue", []byte(src))
			var diags Diagnostics
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want it to load", err)
			case tt.want == "":
				return
			case !errors.As(err, &diags):
				t.Fatalf("got %v, want an error at %s containing %q", err, tt.path, tt.want)
			}
			var at []Diagnostic
			for _, d := range diags {
				if d.Path == tt.path {
					at = append(at, d)
				}
			}
			if len(at) != 1 || !strings.Contains(at[0].Msg, tt.want) {
				t.Fatalf("at %s: got %v, want one error containing %q\nall: %v", tt.path, at, tt.want, err)
			}
			if got := FormatPos(at[0].Pos); tt.at != "" && got != tt.at {
				t.Errorf("error at %s, want %s (the element naming a server not listed; the NS field when none is)", got, tt.at)
			}
			if !tt.related {
				return
			}
			line := strings.Count(config[:strings.Index(config, "nameservers")], "\n") + 1
			if !slices.ContainsFunc(at[0].Related, func(p model.Pos) bool { return p.File == "site.cue" && p.Line == line }) {
				t.Errorf("related %v, want site.cue:%d (the nameservers line)", at[0].Related, line)
			}
		})
	}
}

package leftovers

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/golden"
)

// TestWriteText renders what each kind of finding reads like: a marked
// zone with more names than are shown, a name a server answered with
// control characters in it (escaped, never a line of its own), a
// running domain with the volumes site made for it (one another domain
// uses, kept), an active network, one a domain uses (no command),
// a provider that is another's alias, what could not be read, and what
// a tenant site.cue grants but whose file was not loaded holds (not
// judged, no command).
func TestWriteText(t *testing.T) {
	odd := backends.Owned{Kind: backends.OwnedDomain, Name: "web\nvm", UUID: "6f0d3c1e-2f4b-4a51-9c7e-0b8a1d2e3f40", Tenant: "lab\x1b[2J", Active: true,
		Volumes: []backends.Volume{{Pool: "default", Name: "web-root"}, {Pool: "default", Name: "seed 1.iso"}, {Pool: "default", Name: "base.qcow2", UsedBy: []string{"db", "mail"}}}}
	used := backends.Owned{Kind: backends.OwnedNetwork, Name: "shared-lan", UUID: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", Tenant: "gone", UsedBy: []string{"web"}}
	lan := backends.Owned{Kind: backends.OwnedNetwork, Name: "old-lan", UUID: "0c9b8a7d-6e5f-4d3c-b2a1-908f7e6d5c4b", Tenant: "gone", Active: true}
	r := &Report{
		Providers: []ProviderReport{
			{Name: "cf", Kind: "cloudflare", Error: "Cloudflare API token for provider cf: environment variable CF_TOKEN is empty or unset"},
			{Name: "pdns", Kind: "powerdns", Listed: 5, Read: 3, Zones: []ZoneReport{
				{Zone: "gone.test.", Owners: []Owner{{Tenant: "gone", Count: 5, Names: []string{"a.gone.test. A", "b.gone.test. A", "c\r.gone.test. TXT"}}},
					Remove: "site disown powerdns gone.test. --provider pdns --ack GATE-DNS-DISOWN"},
				{Zone: "moved.test.", DeclaredOn: []string{"tenant m on provider pdns2"}, Owners: []Owner{{Tenant: "m", Loaded: true, Count: 1, Names: []string{"www.moved.test. A"}}},
					Remove: "site disown powerdns moved.test. --provider pdns --ack GATE-DNS-DISOWN"},
				{Zone: "broken.test.", Error: "read zone broken.test.: 500 Internal Server Error"},
				{Zone: "team.test.", NotJudged: "tenant team is granted in site.cue, but its file was not loaded, so it may declare this zone still", Owners: []Owner{{Tenant: "team", Count: 1, Names: []string{"www.team.test. A"}}}},
			}},
			{Name: "pdns-again", Kind: "powerdns", SameAs: "pdns"},
		},
		Hosts: []HostReport{
			{Name: "kvm1", URI: "qemu:///system", Listed: 4, Leftovers: []Resource{
				{Kind: odd.Kind, Name: odd.Name, UUID: odd.UUID, Tenant: odd.Tenant, Loaded: true, Active: true, Volumes: volumeNames(odd.Volumes), InUse: inUse(odd), Remove: removal("qemu:///system", odd)},
				{Kind: lan.Kind, Name: lan.Name, UUID: lan.UUID, Tenant: lan.Tenant, Active: true, Remove: removal("qemu:///system", lan)},
				{Kind: used.Kind, Name: used.Name, UUID: used.UUID, Tenant: used.Tenant, InUse: inUse(used), Remove: removal("qemu:///system", used)},
				{Kind: backends.OwnedDomain, Name: "team-web", UUID: "7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918", Tenant: "team", NotJudged: "tenant team is granted in site.cue, but its file was not loaded, so it may declare this VM still", Remove: []string{}},
			}},
			{Name: "kvm2", URI: "qemu+ssh://kvm2/system", Error: "connect to qemu+ssh://kvm2/system: no route to host"},
		},
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "text.golden"), b.Bytes())
}

// TestExitDecision: a report is unread when any provider, zone or host
// could not be read, whatever else it found, and found when anything is
// left over; an alias or a provider holding nothing is neither.
func TestExitDecision(t *testing.T) {
	for _, c := range []struct {
		name          string
		r             Report
		unread, found bool
	}{
		{"empty", Report{}, false, false},
		{"clean provider and alias", Report{Providers: []ProviderReport{{Name: "a", Listed: 3}, {Name: "b", SameAs: "a"}}}, false, false},
		{"provider unread", Report{Providers: []ProviderReport{{Name: "a", Error: "x"}}}, true, false},
		{"zone unread", Report{Providers: []ProviderReport{{Name: "a", Zones: []ZoneReport{{Zone: "z.", Error: "x"}}}}}, true, false},
		{"zone marked", Report{Providers: []ProviderReport{{Name: "a", Zones: []ZoneReport{{Zone: "z.", Owners: []Owner{{Tenant: "t", Count: 1}}}}}}}, false, true},
		{"host unread", Report{Hosts: []HostReport{{Name: "h", Error: "x"}}}, true, false},
		{"domain left", Report{Hosts: []HostReport{{Name: "h", Leftovers: []Resource{{Kind: "domain", Name: "d"}}}}}, false, true},
	} {
		if u, f := c.r.Unread(), c.r.Found(); u != c.unread || f != c.found {
			t.Errorf("%s: Unread %t Found %t, want %t %t", c.name, u, f, c.unread, c.found)
		}
	}
}

// TestLeftoverRunningDomainIsOffBeforeItsDisksGo: the commands for a
// running domain stop it with destroy, which returns once it is off,
// never with shutdown, which returns at once: pasted together, undefine
// and vol-delete would otherwise delete the disks of a guest still
// running. Each is quoted, and names the domain by its UUID.
func TestLeftoverRunningDomainIsOffBeforeItsDisksGo(t *testing.T) {
	o := backends.Owned{Kind: backends.OwnedDomain, Name: "web", UUID: "6f0d3c1e-2f4b-4a51-9c7e-0b8a1d2e3f40", Tenant: "lab", Active: true,
		Volumes: []backends.Volume{{Pool: "default", Name: "web root"}}}
	want := []string{
		"virsh -c 'qemu+ssh://kvm 1/system' destroy 6f0d3c1e-2f4b-4a51-9c7e-0b8a1d2e3f40",
		"virsh -c 'qemu+ssh://kvm 1/system' undefine 6f0d3c1e-2f4b-4a51-9c7e-0b8a1d2e3f40",
		"virsh -c 'qemu+ssh://kvm 1/system' vol-delete --pool default 'web root'",
	}
	if got := removal("qemu+ssh://kvm 1/system", o); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("removal =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	o.Active = false
	if got := removal("qemu:///system", o); len(got) != 2 || strings.Contains(strings.Join(got, "\n"), "destroy") {
		t.Errorf("a domain shut off: %q, want undefine and vol-delete alone", got)
	}
}

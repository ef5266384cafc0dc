// Package specgen writes synthetic, valid tenant specs, and the site.cue
// that grants them, for benchmarks:
// many tenants, one file and one zone each, with a realistic mix of
// record types (80 % A, 10 % AAAA, 5 % CNAME, 5 % TXT, the mix CUE's
// evaluation cost was first measured with), and one network and VM in
// every tenth tenant.
// Zones writes one tenant with many zones instead, the one-file twin of
// Write's many tenants. The same inputs give the same bytes, so runs
// compare.
package specgen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Tenant returns the spec of tenant number i with n records.
func Tenant(i, n int) []byte {
	name := fmt.Sprintf("t%04d", i)
	zone := name + ".example.test"
	var b strings.Builder
	fmt.Fprintf(&b, "package tenants\n\ntenants: %s: {\n\tdomain: %q\n", name, zone)
	fmt.Fprintf(&b, "\tdns: zones: %q: {\n", zone)
	records(&b, i, zone, n)
	b.WriteString("\t}\n")
	if i%10 == 0 {
		fmt.Fprintf(&b, "\tnetworks: \"lan-%s\": {host: \"kvm1\", cidr: \"10.%d.%d.0/24\", autostart: true}\n", name, i/256%256, i%256)
		fmt.Fprintf(&b, "\tvms: %s: {host: \"kvm1\", autostart: true, memory: \"1GiB\", nics: [{network: \"lan-%s\"}]}\n", name, name)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// Zones returns the spec of tenant number i with zones zones of n
// records each, z000.tNNNN.example.test and on: as many zones as
// Write's tenants hold, in one file.
func Zones(i, zones, n int) []byte {
	name := fmt.Sprintf("t%04d", i)
	var b strings.Builder
	fmt.Fprintf(&b, "package tenants\n\ntenants: %s: {\n\tdomain: \"%s.example.test\"\n\tdns: zones: {\n", name, name)
	for z := range zones {
		zone := fmt.Sprintf("z%03d.%s.example.test", z, name)
		fmt.Fprintf(&b, "\t%q: {\n", zone)
		records(&b, z, zone, n)
		b.WriteString("\t}\n")
	}
	b.WriteString("\t}\n}\n")
	return []byte(b.String())
}

// records writes the provider and n records of zone, the i-th zone
// generated.
func records(b *strings.Builder, i int, zone string, n int) {
	b.WriteString("\t\tprovider: \"pdns\"\n")
	b.WriteString("\t\trecords: {\n")
	for r := range n {
		host := fmt.Sprintf("h%03d", r)
		switch r % 20 {
		case 0, 1:
			fmt.Fprintf(b, "\t\t\t%s: AAAA: [\"2001:db8:%x::%x\"]\n", host, i, r+1)
		case 2:
			fmt.Fprintf(b, "\t\t\t%s: CNAME: \"h%03d.%s.\"\n", host, r+1, zone)
		case 3:
			fmt.Fprintf(b, "\t\t\t%s: TXT: [\"site-bench=%d-%d\"]\n", host, i, r)
		default:
			fmt.Fprintf(b, "\t\t\t%s: A: [\"10.%d.%d.%d\"]\n", host, i/256%256, i%256, r%250+1)
		}
	}
	b.WriteString("\t\t}\n")
}

// PowerDNS is where the generated site.cue's provider pdns points:
// the API's URL, and the DNS address apply verifies over ("" leaves it
// to site's default).
type PowerDNS struct {
	URL, DNS string
}

// Site returns the operator's file that grants tenants 0..tenants-1
// their domain, the provider and the host their specs name.
func Site(tenants int) []byte { return SiteFor(PowerDNS{URL: "http://127.0.0.1:8081"}, 0, tenants) }

// SiteFor is Site with the provider pointing at p, its API key read
// from $PDNS_API_KEY, granting tenants first..first+count-1.
func SiteFor(p PowerDNS, first, count int) []byte { return siteFor(p, first, count, "") }

// SiteForZones is SiteFor granting tenant i alone, and as many zones as
// Zones writes for it (limits: zones: zones), as an operator grants a
// tenant more zones than the default limit.
func SiteForZones(p PowerDNS, i, zones int) []byte {
	return siteFor(p, i, 1, fmt.Sprintf(", limits: zones: %d", zones))
}

func siteFor(p PowerDNS, first, count int, limits string) []byte {
	var b strings.Builder
	dns := ""
	if p.DNS != "" {
		dns = fmt.Sprintf(", dns: %q", p.DNS)
	}
	fmt.Fprintf(&b, "package site\n\nproviders: pdns: powerdns: {url: %q, api_key: env: \"PDNS_API_KEY\"%s}\n", p.URL, dns)
	b.WriteString("hosts: kvm1: uri: \"qemu:///system\"\n\ntenants: {\n")
	for i := first; i < first+count; i++ {
		fmt.Fprintf(&b, "\tt%04d: {domains: [\"t%04d.example.test\"], providers: [\"pdns\"], hosts: [\"kvm1\"]%s}\n", i, i, limits)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// Write writes tenants files of n records each into dir, and the
// operator's file site.cue that grants them, and returns the tenant
// files' paths and total size.
func Write(dir string, tenants, n int) (paths []string, size int64, err error) {
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), Site(tenants), 0o644); err != nil {
		return nil, 0, err
	}
	for i := range tenants {
		p := filepath.Join(dir, fmt.Sprintf("t%04d.cue", i))
		src := Tenant(i, n)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return nil, 0, err
		}
		paths = append(paths, p)
		size += int64(len(src))
	}
	return paths, size, nil
}

// SiteForTenantsZones is SiteFor granting tenants first..first+count-1
// zones zones each (limits: zones: zones), for the files WriteZones
// writes.
func SiteForTenantsZones(p PowerDNS, first, count, zones int) []byte {
	return siteFor(p, first, count, fmt.Sprintf(", limits: zones: %d", zones))
}

// WriteZones writes tenants files of zones zones of n records each
// (Zones) into dir, and the operator's file site.cue that grants them,
// and returns the tenant files' paths.
func WriteZones(dir string, p PowerDNS, tenants, zones, n int) ([]string, error) {
	return WriteZonesFrom(dir, p, 0, tenants, zones, n)
}

// WriteZonesFrom is WriteZones for tenants first..first+tenants-1.
func WriteZonesFrom(dir string, p PowerDNS, first, tenants, zones, n int) ([]string, error) {
	if err := os.WriteFile(filepath.Join(dir, "site.cue"), SiteForTenantsZones(p, first, tenants, zones), 0o644); err != nil {
		return nil, err
	}
	var paths []string
	for i := first; i < first+tenants; i++ {
		path := filepath.Join(dir, fmt.Sprintf("t%04d.cue", i))
		if err := os.WriteFile(path, Zones(i, zones, n), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

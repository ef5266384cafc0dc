package importzone

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/golden"
)

// fixtures are one zone, example.test, written in each source's form:
// what that tool can say of it. lacks is what of the BIND file the
// tool cannot say, as owner and type: octoDNS and DNSControl keep a
// TXT as one text (so the two-string TXT "parts" is only in the BIND
// file), octoDNS has no HINFO, RP, CERT or SMIMEA, DNSControl no
// HINFO, URI or CERT; octoDNS files hold no SOA. zones.json holds a
// second zone, other.test.
var fixtures = []struct {
	format, file string
	lacks        []string
}{
	{"bind", "example.test.zone", nil},
	{"octodns", "example.test.yaml", []string{"parts TXT", "host HINFO", "host RP", "host CERT", smimeaOwner + " SMIMEA"}},
	{"dnscontrol", "zones.json", []string{"parts TXT", "host HINFO", "host CERT", "_ftp._tcp URI"}},
}

// smimeaOwner is the fixtures' SMIMEA owner, less the zone.
const smimeaOwner = "c93f1e400f26708f98cb19d936620da35eec8f72e57f9eec01c1afd6._smimecert"

// without is want, as bindRecords gives it, less the records of
// example.test at the owners and types of lacks ("parts TXT").
func without(want, lacks []string) []string {
	return slices.DeleteFunc(slices.Clone(want), func(s string) bool {
		f := strings.Fields(s) // name, TTL, type, data
		return slices.Contains(lacks, strings.TrimSuffix(f[0], ".example.test.")+" "+f[2])
	})
}

func importFixture(t *testing.T, format, file, zone string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Import(Request{Format: format, File: file, Src: src, Zone: zone, Tenant: "lab", Provider: "pdns"})
	if err != nil {
		t.Fatalf("import %s %s: %v", format, file, err)
	}
	return out
}

// TestImportGolden pins the spec each fixture imports as.
func TestImportGolden(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.format, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", f.format+".golden"), importFixture(t, f.format, f.file, ""))
		})
	}
	t.Run("dnscontrol --zone other.test", func(t *testing.T) {
		golden.Check(t, filepath.Join("testdata", "dnscontrol-other.golden"), importFixture(t, "dnscontrol", "zones.json", "other.test"))
	})
}

// TestImportedSpecSaysTheSource writes each imported spec beside a
// site.cue that grants it, loads it as site vet does, and checks that
// it wants exactly the records of the BIND file, read on their own by
// miekg/dns and compared on the wire, TTLs included: all but the SOA
// and the apex NS, which are left out by site's rules, and what the
// tool cannot say (fixtures' lacks).
func TestImportedSpecSaysTheSource(t *testing.T) {
	want := bindRecords(t, filepath.Join("testdata", "example.test.zone"))
	if len(want) < 20 {
		t.Fatalf("the BIND fixture reads as %d records; it holds more", len(want))
	}
	for _, f := range fixtures {
		t.Run(f.format, func(t *testing.T) {
			out := importFixture(t, f.format, f.file, "example.test")
			dir := t.TempDir()
			site := "package site\n\nproviders: pdns: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"PDNS_API_KEY\"}\n" +
				"tenants: lab: {domains: [\"example.test\"], providers: [\"pdns\"]}\n"
			for name, src := range map[string][]byte{"site.cue": []byte(site), "lab.cue": out} {
				if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			spec, err := compiler.Load(filepath.Join(dir, "site.cue"), []string{filepath.Join(dir, "lab.cue")})
			if err != nil {
				t.Fatalf("site vet of the imported spec: %v\n%s", err, out)
			}
			var got []string
			for _, rs := range spec.Tenants[0].Zones[0].RRsets {
				for _, v := range rs.Values {
					got = append(got, wire(t, fmt.Sprintf("%s %d IN %s %s", rs.Name, rs.TTL, rs.Type, v)))
				}
			}
			slices.Sort(got)
			wantHere := without(want, f.lacks)
			if !slices.Equal(got, wantHere) {
				t.Errorf("records of the imported spec:\n got %q\nwant %q", got, wantHere)
			}
		})
	}
}

// bindRecords is every record of the BIND file at path but its SOA and
// apex NS, as wire.
func bindRecords(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zp := dns.NewZoneParser(strings.NewReader(string(src)), "", path)
	var out []string
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		h := rr.Header()
		if h.Rrtype == dns.TypeSOA || h.Rrtype == dns.TypeNS && h.Name == "example.test." {
			continue
		}
		out = append(out, wire(t, rr.String()))
	}
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// wire is one record, in presentation form, as name, TTL, type and
// its data packed: two spellings of one record are equal.
func wire(t *testing.T, s string) string {
	t.Helper()
	rr, err := dns.NewRR(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	buf := make([]byte, dns.Len(rr)+512)
	n, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		t.Fatalf("pack %s: %v", s, err)
	}
	h := rr.Header()
	return fmt.Sprintf("%s %d %s %x", strings.ToLower(h.Name), h.Ttl, dns.TypeToString[h.Rrtype], buf[:n])
}

// TestImportRefuses checks that what site cannot say is refused with
// the place it was written, every such record at once, and that
// nothing is written.
func TestImportRefuses(t *testing.T) {
	const soa = "$ORIGIN example.test.\n$TTL 300\n@ SOA ns1 hostmaster 1 7200 900 1209600 300\n"
	tests := []struct {
		name, format, src, zone string
		want                    []string // each in the error
	}{
		{name: "a type site lacks, and another problem, both listed", format: "bind",
			src: soa + "afs AFSDB 1 afs.example.test.\nwww 300 A 192.0.2.1\nwww 60 A 192.0.2.2\n",
			want: []string{"2 records cannot be written", "src:4: afs.example.test. AFSDB: the tenant language has no AFSDB records",
				"src:6: www.example.test. A has TTL 60 here and 300 at src:5"}},
		{name: "one RRset with two TTLs", format: "bind",
			src:  soa + "www 300 A 192.0.2.1\nwww 60 A 192.0.2.2\n",
			want: []string{"src:5: www.example.test. A has TTL 60 here and 300 at src:4"}},
		{name: "a record that spans lines is named by its first", format: "bind",
			src:  soa + "; a comment\n\nlong 300 TXT ( \"a\"\n  \"b\" )\nlong 60 TXT \"c\"",
			want: []string{"src:8: long.example.test. TXT has TTL 60 here and 300 at src:6"}},
		{name: "outside the zone", format: "bind", zone: "example.test",
			src:  "$TTL 300\nwww.example.org. A 192.0.2.1\n",
			want: []string{"src:2: www.example.org. A lies outside zone example.test."}},
		{name: "syntax error", format: "bind",
			src:  soa + "www 300 A not-an-address\n",
			want: []string{"src:4:", "bad A A", "fix the file"}},
		{name: "include", format: "bind",
			src:  soa + "$INCLUDE /etc/passwd\n",
			want: []string{"src:4:", "$INCLUDE"}},
		{name: "class CH", format: "bind",
			src:  soa + "version CH TXT \"9\"\n",
			want: []string{"src:4: version.example.test. TXT is of class CH"}},
		{name: "no SOA and no --zone", format: "bind",
			src:  "$ORIGIN example.test.\n$TTL 300\nwww A 192.0.2.1\n",
			want: []string{"has no SOA", "--zone"}},
		{name: "CNAME beside another type is what vet refuses", format: "bind",
			src:  soa + "www CNAME example.test.\nwww TXT \"x\"\n",
			want: []string{"site vet refuses the imported spec", "CNAME"}},
		{name: "octoDNS: a type site lacks and dynamic answers", format: "octodns", zone: "example.test",
			src: "fwd:\n  type: URLFWD\n  value: {path: /}\ngeo:\n  type: A\n  value: 192.0.2.1\n  dynamic: {pools: {}}\n",
			want: []string{"src:3: fwd.example.test. URLFWD: the tenant language has no URLFWD records",
				`src:7: geo.example.test.: "dynamic" is octoDNS's own (answers that depend on who asks)`}},
		{name: "octoDNS: an MX without its exchange", format: "octodns", zone: "example.test",
			src:  "'':\n  type: MX\n  value:\n    preference: 10\n",
			want: []string{"src:4: example.test. MX: the value has no exchange"}},
		{name: "DNSControl: proxied, and a type site lacks", format: "dnscontrol",
			src: `{"domains": [{"name": "example.test", "records": [
				{"type": "A", "name": "www", "target": "192.0.2.1", "meta": {"cloudflare_proxy": "on"}},
				{"type": "CF_REDIRECT", "name": "@", "target": "https://example.org/$1"}]}]}`,
			want: []string{"src: domain example.test record 1: www.example.test. A: is proxied through Cloudflare",
				"src: domain example.test record 2: example.test. CF_REDIRECT: the tenant language has no CF_REDIRECT records"}},
		{name: "DNSControl: --zone names no domain", format: "dnscontrol", zone: "nope.test",
			src:  `{"domains": [{"name": "example.test", "records": []}]}`,
			want: []string{"--zone nope.test: src holds no such zone; it holds example.test"}},
		{name: "unknown format", format: "tinydns", src: "",
			want: []string{`cannot read "tinydns"`, "bind, octodns, dnscontrol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Import(Request{Format: tt.format, File: "src", Src: []byte(tt.src), Zone: tt.zone, Tenant: "lab", Provider: "pdns"})
			if err == nil {
				t.Fatalf("got no error, want one; output:\n%s", out)
			}
			if out != nil {
				t.Errorf("an import that failed wrote:\n%s", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// TestZoneFileExportReadsBack writes the BIND fixture's records as site
// export --format zone writes a zone (export.RenderZoneFile) and imports
// that file: the spec is the fixture's, but for the comments, so the
// two forms of an export say the same records.
func TestZoneFileExportReadsBack(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "example.test.zone"))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Format: "bind", File: "example.test.zone", Src: src, Tenant: "lab", Provider: "pdns"}
	zones, err := parseBIND(req.File, src, "")
	if err != nil {
		t.Fatal(err)
	}
	ez, problems := rrsets(zones[0], req)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	file, err := export.RenderZoneFile(ez)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Import(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := Import(Request{Format: "bind", File: "exported.zone", Src: file, Zone: "example.test", Tenant: "lab", Provider: "pdns"})
	if err != nil {
		t.Fatalf("import of the exported zone file: %v\n%s", err, file)
	}
	if uncommented(got) != uncommented(want) {
		t.Errorf("the exported zone file imports as\n%s\nwant\n%s\nfile:\n%s", got, want, file)
	}
}

// uncommented is a spec without its comment lines.
func uncommented(spec []byte) string {
	var keep []string
	for _, l := range strings.Split(string(spec), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

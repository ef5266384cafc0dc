package export

import (
	"testing"
	"unicode/utf8"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// FuzzRender writes one TXT record under an arbitrary owner name and
// reads it back through the compiler: whatever a name or string holds,
// the spec must parse and say exactly that record.
func FuzzRender(f *testing.F) {
	for _, seed := range [][2]string{
		{"www", "v=spf1 -all"}, {"if", `\(x)`}, {"_dmarc", `"quoted" \ back`}, {"*.apps", "tab\tnl\n"},
		{"xn--mnchen-3ya", "café"}, {"a-b.c_d", "#{x}"}, {"for", "\x00\x7f"}, {"@", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, owner, txt string) {
		const zone = "fuzz.example."
		name, err := dnsname.Canonical(owner, zone)
		if err != nil || !dnsname.IsSubdomain(name, zone) || !utf8.ValidString(txt) {
			return
		}
		rs := model.RRset{Name: name, Type: "TXT", TTL: 300, Values: []string{rdata.TXT(txt)}}
		out, err := Render(Zone{Tenant: "fuzz", Zone: zone, Provider: pdnsProvider, RRsets: []model.RRset{rs}})
		if err != nil {
			t.Fatalf("Render(%q, %q): %v", owner, txt, err)
		}
		spec, err := loadRendered(t, dir, Zone{Tenant: "fuzz", Zone: zone, Provider: pdnsProvider}, out)
		if err != nil {
			t.Fatalf("compiler.Load of the spec for %q, %q:\n%v\n%s", owner, txt, err, out)
		}
		got := spec.Tenants[0].Zones[0].RRsets
		if len(got) != 1 || got[0].Name != name || got[0].Type != "TXT" || len(got[0].Values) != 1 || got[0].Values[0] != rs.Values[0] {
			t.Fatalf("read back %+v, want %s TXT %s", got, name, rs.Values[0])
		}
	})
}

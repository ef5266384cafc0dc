package compiler

import (
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestSignedChildren: a signed zone's DS goes to its nearest enclosing
// zone of the tenant, and only a signed zone's, whatever the providers
// of parent and child; never across a name granted to another tenant,
// whose zone its DS belongs in.
func TestSignedChildren(t *testing.T) {
	pdns := model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081"}}
	top := &model.Zone{Name: "example.test.", Provider: pdns}
	mid := &model.Zone{Name: "a.example.test.", Provider: pdns}
	signed := &model.Zone{Name: "b.a.example.test.", DNSSEC: true, Provider: pdns}
	skip := &model.Zone{Name: "x.y.example.test.", DNSSEC: true, Provider: pdns} // y.example.test. is not a zone here
	plain := &model.Zone{Name: "c.a.example.test.", Provider: pdns}
	// Cloudflare signs its zones itself: the child's step reads the DS,
	// which a PowerDNS or a Cloudflare parent publishes.
	cloudflare := model.Provider{Cloudflare: &model.Cloudflare{}}
	cf := &model.Zone{Name: "cf.a.example.test.", DNSSEC: true, Provider: cloudflare}
	cfTop := &model.Zone{Name: "cf.example.org.", Provider: cloudflare}
	cfChild := &model.Zone{Name: "s.cf.example.org.", DNSSEC: true, Provider: cloudflare}
	// other.example.test. is another tenant's: a DS below it is not
	// top's to write.
	across := &model.Zone{Name: "kid.other.example.test.", DNSSEC: true, Provider: pdns}
	signedChildren([]*model.Zone{top, mid, signed, skip, plain, cf, cfTop, cfChild, across}, func(n string) bool { return n == "other.example.test." })
	if signed.DSParent != mid.Name || across.DSParent != "" || plain.DSParent != "" {
		t.Errorf("DSParent: signed %q (want %q), across %q, plain %q (want none)", signed.DSParent, mid.Name, across.DSParent, plain.DSParent)
	}
	for _, tc := range []struct {
		z    *model.Zone
		want []*model.Zone
	}{{top, []*model.Zone{skip}}, {mid, []*model.Zone{signed, cf}}, {signed, nil}, {plain, nil}, {cfTop, []*model.Zone{cfChild}}} {
		if len(tc.z.SignedChildren) != len(tc.want) {
			t.Errorf("%s: got %d signed children, want %d", tc.z.Name, len(tc.z.SignedChildren), len(tc.want))
			continue
		}
		for i := range tc.want {
			if tc.z.SignedChildren[i] != tc.want[i] {
				t.Errorf("%s: got child %s, want %s", tc.z.Name, tc.z.SignedChildren[i].Name, tc.want[i].Name)
			}
		}
	}
}

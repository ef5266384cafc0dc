package compiler

import (
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestSignedChildren: a signed zone's DS goes to its nearest enclosing
// zone of the tenant, and only a signed zone's.
func TestSignedChildren(t *testing.T) {
	top := &model.Zone{Name: "example.test."}
	mid := &model.Zone{Name: "a.example.test."}
	signed := &model.Zone{Name: "b.a.example.test.", DNSSEC: true}
	skip := &model.Zone{Name: "x.y.example.test.", DNSSEC: true} // y.example.test. is not a zone here
	plain := &model.Zone{Name: "c.a.example.test."}
	signedChildren([]*model.Zone{top, mid, signed, skip, plain})
	for _, tc := range []struct {
		z    *model.Zone
		want []*model.Zone
	}{{top, []*model.Zone{skip}}, {mid, []*model.Zone{signed}}, {signed, nil}, {plain, nil}} {
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

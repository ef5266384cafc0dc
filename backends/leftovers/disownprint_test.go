package leftovers

import (
	"bytes"
	"errors"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// TestDisownPrint: the markers disown lists, the names without one, and
// the tenants still declaring the zone (positions made relative), or
// that they could not be checked.
func TestDisownPrint(t *testing.T) {
	marks := []backends.Mark{{Name: "www.example.org.", Type: "A", Tenant: "office1"}}
	rel := func(p model.Pos) model.Pos { p.File = "tenants/" + p.File; return p }
	claims := []*model.Zone{{Tenant: "office1", Name: "example.org.", Pos: model.Pos{File: "office1.cue", Line: 4, Col: 3}}}
	var b bytes.Buffer
	WriteMarks(&b, "example.org.", marks, false)
	WriteMarks(&b, "example.org.", marks, true)
	b.WriteString("zone example.org.: no site owner markers" + NamesNote([]string{"old.example.org.", "x.example.org."}) + NamesNote(nil) + "\n")
	WarnClaims(&b, "example.org.", "pdns", claims, nil, rel)
	WarnClaims(&b, "example.org.", "pdns", nil, errors.New("no site.cue"), rel)
	want := `zone example.org.: would remove 1 owner marker:
  - www.example.org. A (tenant office1)
zone example.org.: removing 1 owner marker:
  - www.example.org. A (tenant office1)
zone example.org.: no site owner markers at old.example.org., x.example.org.
warning: tenant office1 still declares zone example.org. on provider pdns, at tenants/office1.cue:4:3: its next apply takes the unmarked records back, at the names it declares (adopting those that match its spec, overwriting the others with --ack GATE-DNS-OVERWRITE); to leave them to no tenant, remove the zone from tenants/office1.cue first
note: could not check whether a tenant still declares zone example.org. on provider pdns: no site.cue
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

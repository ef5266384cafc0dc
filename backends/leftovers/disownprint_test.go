package leftovers

import (
	"bytes"
	"context"
	"errors"
	"strings"
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

// fakeDisowner holds marks and counts what Unmark removed.
type fakeDisowner struct {
	marks   []backends.Mark
	removed int
}

func (f *fakeDisowner) Marks(context.Context, *model.Zone, *backends.Run) ([]backends.Mark, error) {
	return f.marks, nil
}

func (f *fakeDisowner) Unmark(_ context.Context, _ *model.Zone, marks []backends.Mark, _ *backends.Run) (int, error) {
	f.removed += len(marks)
	return len(marks), nil
}

// TestUnmark: a dry run lists and changes nothing; acknowledged, it
// removes the markers picked; a name without one is said; no marker at
// all is nothing to do.
func TestUnmark(t *testing.T) {
	ctx := context.Background()
	sel, err := SelectDisown("example.org", []string{"www", "old"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeDisowner{marks: []backends.Mark{{Name: "www.example.org.", Type: "A", Tenant: "office1"}, {Name: "mail.example.org.", Type: "MX", Tenant: "office1"}}}
	asked := 0
	u := Unmarking{D: f, Zone: &model.Zone{Name: sel.Zone}, Sel: sel, Unit: "record set", Provider: "pdns",
		Claims: func() ([]*model.Zone, error) { asked++; return nil, nil }, Rel: func(p model.Pos) model.Pos { return p }}
	var b bytes.Buffer
	if n, err := u.Unmark(ctx, &b, false); err != nil || n != 1 || f.removed != 0 || asked != 1 ||
		b.String() != "zone example.org.: would remove 1 owner marker:\n  - www.example.org. A (tenant office1)\nzone example.org.: no site owner markers at old.example.org.\n" {
		t.Errorf("dry run: listed %d, err %v, removed %d, claims asked %d, output\n%s", n, err, f.removed, asked, b.String())
	}
	b.Reset()
	if n, err := u.Unmark(ctx, &b, true); err != nil || n != 1 || f.removed != 1 || !strings.HasSuffix(b.String(), "removed site's owner marker from 1 record set of zone example.org.; records unchanged.\n") {
		t.Errorf("acknowledged: listed %d, err %v, removed %d, output\n%s", n, err, f.removed, b.String())
	}
	b.Reset()
	f.marks = nil
	if n, err := u.Unmark(ctx, &b, true); err != nil || n != 0 || b.String() != "zone example.org.: no site owner markers at www.example.org., old.example.org.; nothing to do.\n" {
		t.Errorf("no markers: listed %d, err %v, output %q", n, err, b.String())
	}
}

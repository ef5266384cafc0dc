package compiler

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/model"
)

// TestWriteVet: what site vet prints in each format, for invalid specs
// (an error and a warning, one with a related position, a message that
// needs escaping in a workflow command) and for a valid one (the
// summary).
func TestWriteVet(t *testing.T) {
	diags := Diagnostics{
		{Pos: model.Pos{File: "tenants/a.cue", Line: 3, Col: 5}, Path: "tenants.a.dns", Msg: "bad: 100%, a:b,\nnext",
			Related: []model.Pos{{File: "tenants/b.cue", Line: 7, Col: 2}}},
		{Pos: model.Pos{File: "tenants/c.cue", Line: 1, Col: 1}, Msg: "a DS no NS delegates", Warning: true},
	}
	valid := &model.Spec{Tenants: []*model.Tenant{{Name: "a",
		Zones: []*model.Zone{{Name: "a.example.", RRsets: []*model.RRset{{Values: []string{"192.0.2.1", "192.0.2.2"}}}}},
		VMs:   []*model.VM{{Name: "web"}}}}}
	for _, format := range []string{"text", "json", "github"} {
		for _, tc := range []struct {
			name  string
			spec  *model.Spec
			diags Diagnostics
		}{
			{name: "invalid", diags: diags},
			{name: "valid", spec: valid, diags: diags[1:]},
		} {
			t.Run(format+"_"+tc.name, func(t *testing.T) {
				var b bytes.Buffer
				if err := WriteVet(&b, format, tc.spec, tc.diags); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", "vet_"+tc.name+"."+format+".golden"), b.Bytes())
			})
		}
	}
	for _, format := range []string{"json", "github"} {
		t.Run(format+"_error", func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteVetError(&b, format, errors.New("no site.cue: 50% of\nnothing")); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "vet_error."+format+".golden"), b.Bytes())
		})
	}
}

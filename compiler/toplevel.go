package compiler

import (
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
)

// topLevel is what one kind of CUE file may hold at its top level: its
// package clause and its fields. Definitions, hidden fields and lets are
// the user's own helpers and always allowed. Anything else would be
// silently ignored by the schema, so check says so.
type topLevel struct {
	pkg     string          // the package the file must declare
	fields  map[string]bool // the fields it may fill
	unknown string          // the message for any other field
	missing string          // the message for a file with no package clause
	other   string          // the message for another package; %s is its name
}

// check reports each field the file may not hold, then a missing or
// wrong package clause.
func (t topLevel) check(path string, f *ast.File) Diagnostics {
	var diags Diagnostics
	at := func(p token.Pos) model.Pos {
		if !p.IsValid() {
			return model.Pos{File: path, Line: 1, Col: 1}
		}
		return model.Pos{File: path, Line: p.Line(), Col: p.Column()}
	}
	var pkg *ast.Package
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.Package:
			pkg = d
		case *ast.Field:
			name, isIdent, err := ast.LabelName(d.Label)
			if err != nil || t.fields[name] || isIdent && (strings.HasPrefix(name, "#") || strings.HasPrefix(name, "_")) {
				continue
			}
			diags = append(diags, Diagnostic{Pos: at(d.Label.Pos()), Path: cuePath(name), Msg: t.unknown})
		}
	}
	switch {
	case pkg == nil:
		diags = append(diags, Diagnostic{Pos: at(token.NoPos), Msg: t.missing})
	case pkg.Name.Name != t.pkg:
		diags = append(diags, Diagnostic{Pos: at(pkg.Name.Pos()), Msg: fmt.Sprintf(t.other, pkg.Name.Name)})
	}
	return diags
}

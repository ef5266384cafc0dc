package compiler

import (
	"encoding/json"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
)

// A big spec file used to cost more memory than the same zones spread
// over many files (issue 13: 200 zones of 50 records, one file, held
// its whole syntax tree, its position index and its plain values at
// once, where 200 files hold one file's at a time). takeTree builds the
// position index and the plain values in one walk and lets each part
// of the syntax tree go once it is read, so the tree shrinks as they
// grow. The tree is of no use afterwards: a file that is not plain
// data, or that the schema's mirror refuses, is parsed again for CUE.
// Each zone the schema's mirror accepts is decoded as soon as it is
// read, so the plain values of more than one zone are never held at
// once either. TestTakeTreeMatches pins the walk to indexPositions and
// plainData.

// takeTree returns f's position index, as indexPositions does, and its
// plain values, as plainData does (ok false when f is not plain data).
// It takes f apart.
func takeTree(file string, f *ast.File) (pos *positions, top map[string]any, ok bool) {
	t := &taker{pos: &positions{file: file, at: map[string]lineCol{}}, plain: true}
	top = map[string]any{}
	t.decls(nil, f.Decls, top)
	f.Decls = nil
	if !t.plain || len(top) > 1 { // helpers beside tenants: let CUE decide
		return t.pos, nil, false
	}
	return t.pos, top, true
}

// taker is one takeTree walk. Once anything is not plain data, plain is
// false and values are no longer built, but every position still is.
type taker struct {
	pos   *positions
	plain bool
}

func (t *taker) at(path []string, lc lineCol) {
	key := strings.Join(path, pathSep)
	if _, ok := t.pos.at[key]; !ok {
		t.pos.at[key] = lc
	}
}

// decls walks the declarations of a file or struct at path into m.
func (t *taker) decls(path []string, decls []ast.Decl, m map[string]any) {
	for i, d := range decls {
		switch d := d.(type) {
		case *ast.Package, *ast.CommentGroup, *ast.Attribute:
		case *ast.Field:
			t.field(path, d, m)
		case *ast.EmbedDecl:
			t.plain = false
			t.pos.expr(path, d.Expr)
		default:
			t.plain = false
		}
		decls[i] = nil
	}
}

func (t *taker) field(path []string, d *ast.Field, m map[string]any) {
	name, _, err := ast.LabelName(d.Label)
	if err != nil {
		t.plain = false
		return // a dynamic label: nothing to index
	}
	fp := append(path[:len(path):len(path)], name)
	t.at(fp, lineColOf(d.Label.Pos()))
	if _, ok := plainLabel(d); !ok {
		t.plain = false
	}
	v := t.expr(fp, d.Value)
	d.Value = nil
	if !t.plain {
		return
	}
	if isZonePath(fp) && m[name] == nil {
		v = decodeZone(v)
	}
	merged, ok := merge(m[name], v)
	if !ok {
		t.plain = false
		return
	}
	m[name] = merged
}

// isZonePath reports whether path is tenants.T.dns.zones.Z.
func isZonePath(path []string) bool {
	return len(path) == 5 && path[0] == "tenants" && path[2] == "dns" && path[3] == "zones"
}

// decodedZone is a zone's plain value that the schema's mirror accepted
// (plainZone) and that was decoded at once, so that a file of many
// zones never holds more than one zone's plain values: plainAccepts
// takes it as the zone it was, and decodePlain as its raw value.
type decodedZone struct{ raw *rawZone }

func (z decodedZone) MarshalJSON() ([]byte, error) { return json.Marshal(z.raw) }

// decodeZone returns v decoded when it is a zone the mirror accepts;
// anything else stays as it is, for plainAccepts to judge with the rest.
func decodeZone(v any) any {
	if !plainZone(v) {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var z rawZone
	if json.Unmarshal(b, &z) != nil {
		return v
	}
	return decodedZone{&z}
}

// expr walks one value at path and returns it as a plain value (nil
// once the file is not plain data).
func (t *taker) expr(path []string, x ast.Expr) any {
	switch x := x.(type) {
	case *ast.BasicLit:
		v, ok := plainLit(x)
		if !ok {
			t.plain = false
		}
		return v
	case *ast.StructLit:
		var m map[string]any
		if t.plain {
			m = map[string]any{}
		}
		t.decls(path, x.Elts, m)
		return m
	case *ast.ListLit:
		var l []any
		if t.plain {
			l = make([]any, 0, len(x.Elts))
		}
		for i, el := range x.Elts {
			elPath := append(path[:len(path):len(path)], strconv.Itoa(i))
			t.at(elPath, lineColOf(el.Pos()))
			v := t.expr(elPath, el)
			if t.plain {
				l = append(l, v)
			}
			x.Elts[i] = nil
		}
		return l
	}
	// Anything else is not plain data; index it as indexPositions does.
	t.plain = false
	t.pos.expr(path, x)
	return nil
}

package compiler

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
)

// positions maps the path of every field and list element a user wrote
// to where its label (or element) starts in the file. CUE positions some
// errors in the schema only (a required field that is missing); this
// index finds the user's nearest element instead, and it positions the
// model's tenants, zones, records and VMs.
type positions struct {
	file string
	at   map[string]lineCol // key: path segments joined by pathSep
}

// lineCol is a position in positions.file; {0, 0} is a position CUE
// did not know. Plain numbers rather than token.Pos, so that an index
// outlives its syntax tree and can be cached (cache.go).
type lineCol [2]int

func lineColOf(tp token.Pos) lineCol {
	if !tp.IsValid() {
		return lineCol{}
	}
	return lineCol{tp.Line(), tp.Column()}
}

const pathSep = "\x00"

func indexPositions(file string, f *ast.File) *positions {
	p := &positions{file: file, at: map[string]lineCol{}}
	p.decls(nil, f.Decls)
	return p
}

func (p *positions) decls(prefix []string, decls []ast.Decl) {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err != nil {
				continue // a dynamic label: nothing to index
			}
			path := append(prefix[:len(prefix):len(prefix)], name)
			key := strings.Join(path, pathSep)
			if _, ok := p.at[key]; !ok {
				p.at[key] = lineColOf(d.Label.Pos())
			}
			p.expr(path, d.Value)
		case *ast.EmbedDecl:
			p.expr(prefix, d.Expr)
		}
	}
}

func (p *positions) expr(path []string, e ast.Expr) {
	switch e := e.(type) {
	case *ast.StructLit:
		p.decls(path, e.Elts)
	case *ast.ListLit:
		for i, el := range e.Elts {
			elPath := append(path[:len(path):len(path)], strconv.Itoa(i))
			key := strings.Join(elPath, pathSep)
			if _, ok := p.at[key]; !ok {
				p.at[key] = lineColOf(el.Pos())
			}
			p.expr(elPath, el)
		}
	case *ast.BinaryExpr:
		// a & b: index both sides; the first occurrence wins.
		p.expr(path, e.X)
		p.expr(path, e.Y)
	case *ast.ParenExpr:
		p.expr(path, e.X)
	}
}

// pos returns the position of the element at path, or of its nearest
// ancestor the user wrote, or the start of the file.
func (p *positions) pos(path ...string) model.Pos {
	// The key of path joined once into a buffer, then cut back an
	// element at a time: a map lookup by string(key) copies nothing,
	// where joining a string for each lookup allocated (a cached load
	// calls this once per record at least).
	var buf [128]byte
	key := buf[:0]
	for i, s := range path {
		if i > 0 {
			key = append(key, pathSep...)
		}
		key = append(key, s...)
	}
	for n := len(path); n > 0; n-- {
		if lc, ok := p.at[string(key)]; ok && lc[0] > 0 {
			return model.Pos{File: p.file, Line: lc[0], Col: lc[1]}
		}
		key = key[:max(0, len(key)-len(path[n-1])-len(pathSep))]
	}
	return model.Pos{File: p.file, Line: 1, Col: 1}
}

// has reports whether the user wrote the element at path.
func (p *positions) has(path ...string) bool {
	_, ok := p.at[strings.Join(path, pathSep)]
	return ok
}

// cuePath renders path segments the way CUE prints a path:
// tenants.sjc.dns.zones."sjc.example.net".records."*.apps".
func cuePath(path ...string) string {
	var b strings.Builder
	for i, s := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		if isIdent(s) || isIndex(s) {
			b.WriteString(s)
		} else {
			b.WriteString(strconv.Quote(s))
		}
	}
	return b.String()
}

// cueLabel renders s as a label to write in a CUE file, for a message
// that shows the line to write: an identifier as it is, anything else
// quoted. Unlike in a path CUE prints, a leading _ or # would make it a
// hidden field or a definition there.
func cueLabel(s string) string {
	if isIdent(s) && s[0] != '_' && s[0] != '#' {
		return s
	}
	return strconv.Quote(s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r == '#' && i == 0:
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

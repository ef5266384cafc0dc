package compiler

import (
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
)

// CUE looks fields up by a linear scan, so one struct of n fields costs
// about n² (measured with cuelang.org/go v0.17.1 on 2 cores: a zone of 5x
// the records took about 7x the time to evaluate). A zone
// with tens of thousands of records is therefore checked in chunks of
// recordsChunk names, each unified with #Records on its own, while the
// rest of the file is unified with the schema without them. This is done
// only for plain-data files, where nothing can refer to a record.
const recordsChunk = 1000

// bigRecords is a records struct taken out of the syntax tree.
type bigRecords struct {
	path  []string // tenants.T.dns.zones.Z.records
	field *ast.Field
	value *ast.StructLit
}

// detachRecords replaces every records struct of more than recordsChunk
// fields by an empty one and returns what it took; restore puts it back.
func detachRecords(f *ast.File) []bigRecords {
	var out []bigRecords
	var walk func(decls []ast.Decl, path []string)
	walk = func(decls []ast.Decl, path []string) {
		for _, d := range decls {
			field, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			name, _, err := ast.LabelName(field.Label)
			if err != nil {
				continue
			}
			p := append(path[:len(path):len(path)], name)
			st, ok := field.Value.(*ast.StructLit)
			if !ok {
				continue
			}
			// tenants T dns zones Z records
			if len(p) == 6 && p[0] == "tenants" && p[2] == "dns" && p[3] == "zones" && p[5] == "records" {
				if len(st.Elts) > recordsChunk {
					out = append(out, bigRecords{path: p, field: field, value: st})
					field.Value = &ast.StructLit{Lbrace: st.Lbrace, Rbrace: st.Rbrace}
				}
				continue
			}
			if len(p) < 6 {
				walk(st.Elts, p)
			}
		}
	}
	walk(f.Decls, nil)
	return out
}

func restore(big []bigRecords) {
	for _, b := range big {
		b.field.Value = b.value
	}
}

// checkRecords validates detached records in chunks.
func (e *evaluator) checkRecords(big []bigRecords) []cueError {
	var errs []cueError
	for _, b := range big {
		for start := 0; start < len(b.value.Elts); start += recordsChunk {
			chunk := &ast.StructLit{Elts: b.value.Elts[start:min(start+recordsChunk, len(b.value.Elts))]}
			v := e.records.Unify(e.ctx.BuildExpr(chunk))
			if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
				errs = append(errs, cueErrors(err, b.path)...)
				validateTree(v, b.path, &errs)
			}
		}
	}
	return errs
}

// tenantOf returns the tenant a records path belongs to.
func tenantOf(path []string) string {
	if len(path) > 1 && path[0] == "tenants" {
		return path[1]
	}
	return strings.Join(path, ".")
}

package compiler

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A tenant lives in one file, named after it: the file is what a
// repository's owners rules protect, so a file declaring another tenant
// would impersonate it, and each file is evaluated on its own, so a
// tenant spread over two files is never merged. These rules hold
// whether or not the schema accepts the file: a tenant split over two
// files is the likeliest reason a file fails the schema (the part in
// the second file lacks the required fields the first one holds), and
// those failures alone would send the user to fill in fields that
// belong in the other file.

// tenantDecl is one file's declaration of a tenant.
type tenantDecl struct {
	r    *fileResult
	pos  model.Pos
	home bool // the file is named after the tenant
}

// oneFile checks every tenant the results declare, accepted by the
// schema or not, against the rules above, and returns their findings
// and, per tenant, the file whose declaration the model takes: the
// first file named after it. A tenant in a file not named after it is
// taken out of that file's tenants. In every file declaring a tenant
// that another file declares too, the diagnostics about elements of
// that tenant the file does not write (a required field missing, say)
// are dropped: the other file may hold them, and they are checked once
// the tenant is in one file. Everything oneFile reads (tenants,
// positions, diagnostics) is what the cache keeps, so a cached result
// reports the same as an evaluated one.
func oneFile(results []*fileResult) (Diagnostics, map[string]*fileResult) {
	decls := map[string][]tenantDecl{}
	var names []string
	for _, r := range results {
		base := strings.TrimSuffix(filepath.Base(r.path), ".cue")
		for _, name := range declaredTenants(r) {
			if decls[name] == nil {
				names = append(names, name)
			}
			decls[name] = append(decls[name], tenantDecl{r: r, pos: r.pos.pos("tenants", name), home: name == base})
		}
	}
	var diags Diagnostics
	owner := map[string]*fileResult{}
	for _, name := range names {
		ds := decls[name]
		var first *tenantDecl // the first file named after the tenant
		for i := range ds {
			if ds[i].home {
				first = &ds[i]
				break
			}
		}
		if first != nil {
			owner[name] = first.r
		}
		path := cuePath("tenants", name)
		for i, d := range ds {
			base := strings.TrimSuffix(filepath.Base(d.r.path), ".cue")
			switch {
			case !d.home && len(ds) == 1:
				diags = append(diags, Diagnostic{Pos: d.pos, Path: path,
					Msg: fmt.Sprintf("file %s.cue declares tenant %s; a tenant file declares only the tenant it is named after (%s), so move tenant %s to %s.cue", base, name, base, name, name)})
			case !d.home:
				var others []model.Pos
				for j, o := range ds {
					if j != i {
						others = append(others, o.pos)
					}
				}
				diags = append(diags, Diagnostic{Pos: d.pos, Related: others, Path: path,
					Msg: fmt.Sprintf("file %s.cue declares tenant %s, which is declared in %s files; a tenant file declares only the tenant it is named after (%s), so merge these fields into %s.cue",
						base, name, count(len(ds)), base, name)})
			case d.r != first.r:
				diags = append(diags, Diagnostic{Pos: d.pos, Related: []model.Pos{first.pos}, Path: path,
					Msg: fmt.Sprintf("tenant %s is declared in two files; keep each tenant in one file", name)})
			}
			if !d.home {
				delete(d.r.tenants, name)
			}
			if len(ds) > 1 {
				d.r.diags = withoutAbsent(d.r, name)
			}
		}
	}
	return diags, owner
}

// count spells a small number of files.
func count(n int) string {
	if n == 2 {
		return "two"
	}
	return strconv.Itoa(n)
}

// declaredTenants names every tenant r declares. A file without
// problems declares the tenants it holds; one with problems may declare
// others the schema refused, named in the file (its position index) or,
// when CUE computed the name, by their diagnostics.
func declaredTenants(r *fileResult) []string {
	if r.index != nil {
		return []string{r.index.tenant.Name} // an index is kept of a file declaring its tenant alone
	}
	names := map[string]bool{}
	for name := range r.tenants {
		names[name] = true
	}
	if len(r.diags) > 0 {
		prefix := "tenants" + pathSep
		for key := range r.pos.at {
			if rest, ok := strings.CutPrefix(key, prefix); ok {
				name, _, _ := strings.Cut(rest, pathSep)
				names[name] = true
			}
		}
		for _, d := range r.diags {
			if name, ok := tenantOfPath(d.Path); ok {
				names[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(names))
}

// tenantOfPath returns the tenant a diagnostic's path (as cuePath
// renders it) lies under.
func tenantOfPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "tenants.")
	if !ok || rest == "" {
		return "", false
	}
	if rest[0] != '"' {
		name, _, _ := strings.Cut(rest, ".")
		return name, true
	}
	quoted, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	name, err := strconv.Unquote(quoted)
	return name, err == nil
}

// withoutAbsent returns r's diagnostics without those about elements
// of tenant name that the file does not write.
func withoutAbsent(r *fileResult, name string) Diagnostics {
	root := cuePath("tenants", name)
	var written map[string]bool
	var out Diagnostics
	for _, d := range r.diags {
		if !strings.HasPrefix(d.Path, root+".") {
			out = append(out, d)
			continue
		}
		if written == nil {
			written = map[string]bool{}
			prefix := "tenants" + pathSep + name + pathSep
			for key := range r.pos.at {
				if strings.HasPrefix(key, prefix) {
					written[cuePath(strings.Split(key, pathSep)...)] = true
				}
			}
		}
		if written[d.Path] {
			out = append(out, d)
		}
	}
	return out
}

package manual

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// getenvNames are the functions (or variables holding one) that read
// the environment: os.Getenv and os.LookupEnv, backends.Run.Getenv, and
// the getenv a package passes around.
var getenvNames = map[string]bool{"Getenv": true, "LookupEnv": true, "getenv": true}

// dynamicReaders are the places that read a variable whose name is not
// in the code: the credentials site.cue names ({env: "NAME"}), the
// operator's own names. A new one fails the test until it is added here
// with the reason.
var dynamicReaders = map[string]string{
	"backends/internal/runstate/runstate.go": "State.Credential reads the {env: NAME} site.cue gives",
	"backends/redact.go":                     "redacts the values of the {env: NAME} credentials site.cue gives",
}

// notListed are variables read only to pass them on, not settings of
// site's.
var notListed = map[string]bool{"PATH": true}

// envRead is one read of a variable the code names.
type envRead struct{ name, at string }

// TestVariablesAreComplete finds every Getenv and LookupEnv in the
// module's non-test Go files, resolves its argument (a string, or a
// constant of the module or of a library), and fails on a name
// Variables lacks; and on an entry of Variables that no code names, so
// the environment topic says neither less nor more than the code reads.
func TestVariablesAreComplete(t *testing.T) {
	top := filepath.Join("..", "..")
	reads, dynamic := scanEnvReads(t, top)
	read := map[string]bool{}
	for _, r := range reads {
		read[r.name] = true
		if _, ok := LookupVariable(r.name); !ok && !notListed[r.name] {
			t.Errorf("%s reads $%s, which compiler/manual.Variables lacks: add it, with what it does", r.at, r.name)
		}
	}
	for _, at := range dynamic {
		file, _, _ := strings.Cut(at, ":")
		if _, ok := dynamicReaders[file]; !ok {
			t.Errorf("%s reads a variable named at run time: if it is a credential site.cue names, add %s to dynamicReaders; else name it with a constant and list it in Variables", at, file)
		}
	}
	if len(reads) < 10 {
		t.Fatalf("found %d reads of the environment; the scan is broken", len(reads))
	}
	src := allSource(t, top)
	for _, v := range Variables {
		if !read[v.Name] && !strings.Contains(src, strconv.Quote(v.Name)) {
			t.Errorf("Variables lists %s, which no code reads or names: drop it", v.Name)
		}
	}
}

// goFiles lists the module's non-test Go files, by path from top.
func goFiles(t *testing.T, top string) []string {
	var files []string
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != top && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || fileExists(filepath.Join(p, "go.mod"))) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// allSource is the text of every non-test Go file but this package's.
func allSource(t *testing.T, top string) string {
	var b strings.Builder
	for _, f := range goFiles(t, top) {
		if strings.HasPrefix(filepath.ToSlash(f), "../../compiler/manual/") {
			continue
		}
		src, err := parseFileText(f)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(src)
	}
	return b.String()
}

func parseFileText(f string) (string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			b.WriteString(lit.Value + "\n")
		}
		return true
	})
	return b.String(), nil
}

// scanEnvReads returns the constant-named reads and the places of the
// reads named at run time.
func scanEnvReads(t *testing.T, top string) (reads []envRead, dynamic []string) {
	fset := token.NewFileSet()
	type pkgFile struct {
		dir  string
		file *ast.File
	}
	var files []pkgFile
	consts := map[string]map[string]string{} // dir -> const name -> value
	for _, f := range goFiles(t, top) {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(f)
		files = append(files, pkgFile{dir, file})
		collectConsts(file, consts, dir)
	}
	external := map[string]map[string]string{} // import path -> consts
	for _, pf := range files {
		imports := map[string]string{}
		for _, im := range pf.file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = p
		}
		ast.Inspect(pf.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !getenvNames[calleeName(call.Fun)] {
				return true
			}
			rel, _ := filepath.Rel(top, fset.Position(call.Pos()).Filename)
			at := filepath.ToSlash(rel) + ":" + strconv.Itoa(fset.Position(call.Pos()).Line)
			name, ok := constValue(call.Args[0], pf.dir, imports, consts, external, t)
			if ok {
				reads = append(reads, envRead{name, at})
			} else {
				dynamic = append(dynamic, at)
			}
			return true
		})
	}
	return reads, dynamic
}

func calleeName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func collectConsts(file *ast.File, consts map[string]map[string]string, dir string) {
	if consts[dir] == nil {
		consts[dir] = map[string]string{}
	}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[dir][n.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
}

// constValue resolves e to a string when it is a literal, a constant of
// its package, or a constant of an imported package (the module's, or a
// library's, found with go list).
func constValue(e ast.Expr, dir string, imports map[string]string, consts, external map[string]map[string]string, t *testing.T) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			v, err := strconv.Unquote(x.Value)
			return v, err == nil
		}
	case *ast.Ident:
		v, ok := consts[dir][x.Name]
		return v, ok
	case *ast.SelectorExpr:
		pkg, ok := x.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		path, ok := imports[pkg.Name]
		if !ok {
			return "", false
		}
		if external[path] == nil {
			external[path] = packageConsts(t, path)
		}
		v, ok := external[path][x.Sel.Name]
		return v, ok
	}
	return "", false
}

// packageConsts returns the string constants of the package at import
// path, read from its source where go list finds it.
func packageConsts(t *testing.T, path string) map[string]string {
	out, err := exec.Command("go", "list", "-tags", "libvirt_dlopen", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", path, err)
	}
	dir := strings.TrimSpace(string(out))
	consts := map[string]map[string]string{}
	fset := token.NewFileSet()
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range matches {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		collectConsts(file, consts, "")
	}
	return consts[""]
}

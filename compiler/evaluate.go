package compiler

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/schema"
)

// evaluator checks spec files against the schema. It owns one CUE
// context: CUE is not safe for concurrent use, so each worker goroutine
// has its own evaluator and nothing CUE leaves it.
type evaluator struct {
	ctx     *cue.Context
	schema  cue.Value
	tenant  cue.Value // #Tenant
	records cue.Value // #Records
}

// fileResult is one evaluated file: its tenants as plain Go values, the
// index of positions the user wrote, and its problems.
type fileResult struct {
	path    string
	pos     *positions
	tenants map[string]*rawTenant
	diags   Diagnostics
}

func newEvaluator() (*evaluator, error) {
	ctx := cuecontext.New()
	inst := build.NewContext().NewInstance("schema", nil)
	names, err := fs.Glob(schema.FS, "*.cue")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(schema.FS, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile("schema/"+name, data)
		if err != nil {
			return nil, fmt.Errorf("embedded schema: %w", err)
		}
		if err := inst.AddSyntax(f); err != nil {
			return nil, fmt.Errorf("embedded schema: %w", err)
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema does not compile (a bug in site): %w", err)
	}
	return &evaluator{
		ctx: ctx, schema: v,
		tenant:  v.LookupPath(cue.MakePath(cue.Def("Tenant"))),
		records: v.LookupPath(cue.MakePath(cue.Def("Records"))),
	}, nil
}

var tenantsPath = cue.MakePath(cue.Str("tenants"))

// file reads, parses, validates and decodes one spec file.
func (e *evaluator) file(path string) *fileResult {
	data, err := os.ReadFile(path)
	if err != nil {
		return &fileResult{path: path, pos: &positions{file: path},
			diags: Diagnostics{{Pos: model.Pos{File: path}, Msg: fmt.Sprintf("cannot read: %v", err)}}}
	}
	return e.source(path, data)
}

// source parses, validates and decodes one spec, named path in
// positions.
func (e *evaluator) source(path string, data []byte) *fileResult {
	r := &fileResult{path: path, pos: &positions{file: path}}
	fail := func(line, col int, format string, args ...any) *fileResult {
		r.diags = append(r.diags, Diagnostic{
			Pos: model.Pos{File: path, Line: line, Col: col},
			Msg: fmt.Sprintf(format, args...),
		})
		return r
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(1, 1, "empty file; a spec starts with \"package tenants\" and fills tenants: NAME: {...}")
	}
	if !utf8.Valid(data) {
		line, col := badUTF8(data)
		return fail(line, col, "not valid UTF-8; save the file as UTF-8")
	}
	f, err := parser.ParseFile(path, data)
	if err != nil {
		r.diags = append(r.diags, fromCUE(cueErrors(err, nil), r.pos)...)
		return r
	}
	r.pos = indexPositions(path, f)
	if d := checkTopLevel(path, f); len(d) > 0 {
		r.diags = append(r.diags, d...)
		return r
	}
	plain, isPlain := plainTenants(f)
	tenants, errs := e.check(f, isPlain)
	if len(errs) > 0 {
		// Decode the tenants that are valid on their own, so that the
		// checks after CUE report their problems in this run too.
		r.tenants = map[string]*rawTenant{}
		for name, v := range tenants {
			var t rawTenant
			if v.Decode(&t) == nil {
				fillDefaults(&t)
				r.tenants[name] = &t
			}
		}
		errs = append(errs, e.hiddenErrors(f, errs)...)
		r.diags = append(r.diags, fromCUE(errs, r.pos)...)
		return r
	}
	if isPlain {
		r.tenants = plain
	} else {
		r.tenants = map[string]*rawTenant{}
		for name, v := range tenants {
			var t rawTenant
			if err := v.Decode(&t); err != nil {
				r.diags = append(r.diags, fromCUE(cueErrors(err, []string{"tenants", name}), r.pos)...)
				continue
			}
			r.tenants[name] = &t
		}
	}
	for _, t := range r.tenants {
		fillDefaults(t)
	}
	return r
}

// check evaluates f against the schema, one tenant at a time: each
// tenant is unified with #Tenant directly, which is cheaper than
// unifying the file with the schema's tenants: [string]: #Tenant and
// reports more of a tenant's errors at once. It returns the tenants
// that are valid and the errors of the others.
func (e *evaluator) check(f *ast.File, plain bool) (map[string]cue.Value, []cueError) {
	var big []bigRecords
	if plain {
		big = detachRecords(f)
		defer restore(big)
	}
	data := e.ctx.BuildFile(f, cue.Scope(e.schema))
	if err := data.Err(); err != nil {
		return nil, cueErrors(err, nil)
	}
	valid := map[string]cue.Value{}
	tenants := data.LookupPath(tenantsPath)
	if !tenants.Exists() {
		return valid, nil
	}
	if err := tenants.Err(); err != nil {
		return nil, cueErrors(err, nil)
	}
	if k := tenants.IncompleteKind(); k != cue.StructKind {
		return nil, []cueError{{path: []string{"tenants"}, msg: fmt.Sprintf("got %s, want a struct {...}", k)}}
	}
	it, err := tenants.Fields()
	if err != nil {
		return nil, cueErrors(err, nil)
	}
	errs := e.checkRecords(big)
	bad := map[string]bool{}
	for _, err := range errs {
		bad[tenantOf(err.path)] = true
	}
	for it.Next() {
		name := it.Selector().Unquoted()
		prefix := []string{"tenants", name}
		v := e.tenant.Unify(it.Value())
		if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
			errs = append(errs, cueErrors(err, prefix)...)
			validateTree(v, prefix, &errs)
			continue
		}
		if !bad[name] {
			valid[name] = v
		}
	}
	return valid, errs
}

// cueError is one CUE error, its path made absolute (tenants.NAME...)
// and unquoted, as the position index keys paths.
type cueError struct {
	path []string
	msg  string
	pos  []token.Pos // Position() first, then InputPositions()
}

// cueErrors converts CUE's errors, evaluated under prefix (a tenant
// unified with #Tenant reports paths starting at #Tenant).
func cueErrors(err error, prefix []string) []cueError {
	var out []cueError
	for _, e := range cueerrors.Errors(err) {
		rel := unquotePath(e.Path())
		if len(rel) > 0 && strings.HasPrefix(rel[0], "#") {
			rel = rel[1:]
		}
		format, args := e.Msg()
		out = append(out, cueError{
			path: append(append([]string{}, prefix...), rel...),
			msg:  fmt.Sprintf(format, args...),
			pos:  append([]token.Pos{e.Position()}, e.InputPositions()...),
		})
	}
	return out
}

// checkTopLevel insists on "package tenants" and, at the top level, on
// nothing but tenants (definitions, hidden fields and lets are the
// user's own helpers). Anything else would be silently ignored.
func checkTopLevel(path string, f *ast.File) Diagnostics {
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
			if err != nil || name == "tenants" || isIdent && (strings.HasPrefix(name, "#") || strings.HasPrefix(name, "_")) {
				continue
			}
			diags = append(diags, Diagnostic{Pos: at(d.Label.Pos()), Path: cuePath(name),
				Msg: "unknown top-level field; a spec file fills only tenants: NAME: {...}"})
		}
	}
	switch {
	case pkg == nil:
		diags = append(diags, Diagnostic{Pos: at(token.NoPos), Msg: "missing \"package tenants\" at the top of the file"})
	case pkg.Name.Name != "tenants":
		diags = append(diags, Diagnostic{Pos: at(pkg.Name.Pos()),
			Msg: fmt.Sprintf("package %s; site specs are \"package tenants\"", pkg.Name.Name)})
	}
	return diags
}

// badUTF8 returns the line and column (in bytes) of the first byte that
// is not valid UTF-8.
func badUTF8(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col += size
		}
		data = data[size:]
	}
	return line, col
}

// validateTree validates each child of v with errors on its own, and
// so on down. CUE reports a missing required field (autostart!) only
// when the value it validates has no other error; validating the
// failing subtrees one by one reports those too, so that a user sees
// every error in one run. It runs only on specs that failed already.
func validateTree(v cue.Value, prefix []string, errs *[]cueError) {
	check := func(c cue.Value) {
		if err := c.Validate(cue.Concrete(true), cue.Final()); err != nil {
			*errs = append(*errs, cueErrors(err, prefix)...)
			validateTree(c, prefix, errs)
		}
	}
	if v.IncompleteKind() == cue.ListKind {
		if it, err := v.List(); err == nil {
			for it.Next() {
				check(it.Value())
			}
		}
		return
	}
	if it, err := v.Fields(); err == nil {
		for it.Next() {
			check(it.Value())
		}
	}
}

// fromCUE turns CUE's errors into diagnostics positioned in the user's
// file: CUE positions some errors in the schema only, so the position
// is the first one in the user's file, else the user's nearest element
// on the error's path.
func fromCUE(errs []cueError, pos *positions) Diagnostics {
	var diags Diagnostics
	credSeen := map[string]bool{}
	for _, e := range errs {
		path, msg := e.path, e.msg
		if strings.Contains(msg, "errors in empty disjunction") {
			continue // a summary line: the errors of each branch follow it
		}
		last := ""
		if len(path) > 0 {
			last = path[len(path)-1]
		}
		switch {
		case credentialFields[last] && strings.Contains(msg, "mismatched types"):
			// Both branches of #Cred fail alike; say it once, plainly.
			key := cuePath(path...)
			if credSeen[key] {
				continue
			}
			credSeen[key] = true
			msg = "a credential is a reference, {env: \"NAME\"} or {vault: {path: \"...\", key: \"...\"}}, never the secret itself"
		case credentialFields[last] && strings.Contains(msg, "incomplete value"):
			msg = "a credential names where the secret is: {env: \"NAME\"} or {vault: {path: \"...\", key: \"...\"}}"
		case structMismatch.MatchString(msg):
			// CUE prints the whole schema struct; say what was expected.
			m := structMismatch.FindStringSubmatch(msg)
			got := m[1]
			if strings.HasPrefix(got, "{") {
				got = m[2]
			}
			msg = fmt.Sprintf("got %s, want a struct {...}", got)
		case last == "autostart" && strings.Contains(msg, "required but not present"):
			msg = "autostart must be declared, true or false: it has no default, because a default hides drift (INCIDENTS.md 3)"
		case last == "provider" && strings.Contains(msg, "required but not present"):
			msg = "name the zone's provider: powerdns: {url, api_key} or cloudflare: {token}"
		case strings.Contains(msg, "required but not present"):
			msg = last + " is required; add it"
		}
		d := Diagnostic{Path: cuePath(path...), Msg: msg}
		var inFile []token.Pos
		for _, p := range e.pos {
			if p.IsValid() && p.Filename() == pos.file {
				inFile = append(inFile, p)
			}
		}
		if len(inFile) > 0 {
			d.Pos = model.Pos{File: pos.file, Line: inFile[0].Line(), Col: inFile[0].Column()}
		} else {
			d.Pos = pos.pos(path...)
		}
		diags = append(diags, d)
	}
	diags = keepClearest(diags)
	if len(diags) == 0 {
		// Never let a failed file pass as empty.
		msg := "invalid spec"
		if len(errs) > 0 {
			msg = errs[0].msg
		}
		diags = append(diags, Diagnostic{Pos: model.Pos{File: pos.file, Line: 1, Col: 1}, Msg: msg})
	}
	return diags
}

// keepClearest drops the noise a default adds to an error: for
// ttl: *300 | #TTL, a user's 0 fails both branches, and CUE reports
// "conflicting values 300 and 0" beside "invalid value 0 (out of bound
// >=1)". Of the errors at one path it keeps the most telling: any other
// error over a conflict, and a conflict with a type over one between
// two literals (which is the default talking).
func keepClearest(diags Diagnostics) Diagnostics {
	score := func(msg string) int {
		m := conflict.FindStringSubmatch(msg)
		switch {
		case m == nil:
			return 2
		case literalValue.MatchString(m[1]) && literalValue.MatchString(m[2]):
			return 0
		}
		return 1
	}
	best := map[string]int{}
	for _, d := range diags {
		best[d.Path] = max(best[d.Path], score(d.Msg))
	}
	out := diags[:0]
	for _, d := range diags {
		if score(d.Msg) == best[d.Path] {
			out = append(out, d)
		}
	}
	return out
}

var (
	conflict       = regexp.MustCompile(`^conflicting values (.+?) and (.+?)( \(mismatched types .*\))?$`)
	structMismatch = regexp.MustCompile(`^conflicting values (.+) and (.+) \(mismatched types (?:\w+ and struct|struct and \w+)\)$`)
	literalValue   = regexp.MustCompile(`^(-?[0-9.]+|".*"|true|false|null)$`)
)

// credentialFields are the fields whose value is a #Cred.
var credentialFields = map[string]bool{"api_key": true, "token": true, "role_id": true, "secret_id": true}

// unquotePath turns CUE's printed selectors ("\"sjc.example.net\"") back
// into plain labels, as the position index keys them.
func unquotePath(sels []string) []string {
	out := make([]string, len(sels))
	for i, s := range sels {
		if strings.HasPrefix(s, "\"") {
			if u, err := strconv.Unquote(s); err == nil {
				s = u
			}
		}
		out[i] = s
	}
	return out
}

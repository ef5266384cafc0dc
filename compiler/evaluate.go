package compiler

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"unicode/utf8"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/schema"
)

// evaluator checks spec files against the schema. It owns one CUE
// context: CUE is not safe for concurrent use, so each worker goroutine
// has its own evaluator and nothing CUE leaves it.
type evaluator struct {
	ctx     *cue.Context
	schema  cue.Value
	records cue.Value       // #Records
	halt    <-chan struct{} // closed when a budget passed: stop early
}

// fileResult is one evaluated file: its tenants as plain Go values, the
// index of positions the user wrote, and its problems.
type fileResult struct {
	path    string
	pos     *positions
	tenants map[string]*rawTenant
	diags   Diagnostics
	// panicked says evaluation panicked: the evaluator is replaced.
	panicked bool
	// strings is what its tenants' strings add up to, each counted per
	// use (withinStrings), for the budget of every file together.
	strings uint64
	// neighbour says the file was loaded for the checks between tenants
	// only (input.neighbour); index, when not nil, is all that was read
	// of it (neighbourindex.go): tenants is nil then. key is its cache
	// key ("" without a cache, or when it must not be cached).
	neighbour bool
	index     *neighbourIndex
	key       string
}

func newEvaluator(halt <-chan struct{}) (*evaluator, error) {
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
		ctx: ctx, schema: v, halt: halt,
		records: v.LookupPath(cue.MakePath(cue.Def("Records"))),
	}, nil
}

var tenantsPath = cue.MakePath(cue.Str("tenants"))

// file reads, parses, validates and decodes one spec file.
func (e *evaluator) file(path string) *fileResult {
	data, fail := readSpec(path)
	if fail != nil {
		return fail
	}
	return e.source(path, data)
}

// readSpec reads the spec file at path, or returns the result that
// says why it cannot be evaluated.
func readSpec(path string) ([]byte, *fileResult) {
	fail := func(pos model.Pos, msg string) *fileResult {
		return &fileResult{path: path, pos: &positions{file: path}, diags: Diagnostics{{Pos: pos, Msg: msg}}}
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxFileSize {
		return nil, fail(model.Pos{File: path, Line: 1, Col: 1}, fmt.Sprintf("%s is larger than the %s a spec file may hold; split it over several tenants' files",
			FormatSize(uint64(fi.Size())), FormatSize(maxFileSize)))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fail(model.Pos{File: path}, fmt.Sprintf("cannot read: %v", err))
	}
	return data, nil
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
	if d := checkTokens(path, data); d != nil {
		r.diags = append(r.diags, *d)
		return r
	}
	f, err := parser.ParseFile(path, data)
	if err != nil {
		r.diags = append(r.diags, fromCUE(syntaxErrors(err), r.pos, cue.Value{})...)
		return r
	}
	if f.PackageName() == "site" {
		// The operator's file this run reads was taken out of the tenant
		// files before, so this is another one, and none belongs here:
		// the operator's lives outside them (site.cue at the top of the
		// repository). One here came with the tenant files, perhaps in a
		// tenant's pull request, and must not pass unnoticed.
		return fail(1, 1, "an operator's file (package site) among the tenant files: site reads the operator's file from %s in the current directory or its parents (the top of the repository, beside tenants/) or from --config, never from among the tenant files; remove this one, or move it there if it is the operator's", ConfigName)
	}
	if d := checkDepth(path, f); d != nil {
		r.diags = append(r.diags, *d)
		return r
	}
	if d := checkBuiltins(path, f); d != nil {
		r.diags = append(r.diags, *d)
		return r
	}
	// tenantsTop.check reads f before takeTree takes it apart; its findings
	// come after legacyFields', as they always did.
	topLevel := tenantsTop.check(path, f)
	pos, top, isPlain := takeTree(path, f)
	r.pos = pos
	if d := legacyFields(r.pos); len(d) > 0 {
		r.diags = append(r.diags, d...)
		return r
	}
	if len(topLevel) > 0 {
		r.diags = append(r.diags, topLevel...)
		return r
	}
	return e.tree(top, isPlain, data, r)
}

// tree evaluates a file that passed the checks before CUE, filling r.
// A plain-data file the schema's mirror accepts (plainschema.go) is
// decoded without CUE; any other file is parsed again (takeTree took
// its syntax tree apart) and evaluated by CUE, which has the final word
// and says what is wrong.
func (e *evaluator) tree(top map[string]any, isPlain bool, data []byte, r *fileResult) *fileResult {
	if isPlain && plainAccepts(top) {
		if plain, ok := decodePlain(top); ok {
			r.tenants = plain
			for _, t := range r.tenants {
				fillDefaults(t)
			}
			return r
		}
	}
	var plain map[string]*rawTenant
	if isPlain {
		plain, isPlain = decodePlain(top)
	}
	f, err := parser.ParseFile(r.path, data)
	if err != nil { // it parsed a moment ago
		r.diags = append(r.diags, fromCUE(syntaxErrors(err), r.pos, cue.Value{})...)
		return r
	}
	guardRegexp(f) // checkBuiltins passed every use of them to be a call
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
		r.diags = append(r.diags, fromCUE(errs, r.pos, e.schema)...)
		return r
	}
	if isPlain {
		r.tenants = plain
	} else {
		r.tenants = map[string]*rawTenant{}
		for name, v := range tenants {
			var t rawTenant
			if err := v.Decode(&t); err != nil {
				r.diags = append(r.diags, fromCUE(cueErrors(err, []string{"tenants", name}), r.pos, e.schema)...)
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

// check evaluates f against the schema and validates it one tenant at a
// time. The whole file is unified with the schema (tenants: [string]:
// #Tenant), as cue vet does, so that it is evaluated as one tree: a
// tenant unified with #Tenant on its own is a second tree, and a field
// of it that refers to a struct outside it (another tenant's hidden
// doubling struct, say) is evaluated again without CUE's structure
// sharing, exponentially (BenchmarkDoubling). It returns the tenants that
// are valid and the errors of the others.
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
	it, err := e.schema.Unify(data).LookupPath(tenantsPath).Fields()
	if err != nil {
		return nil, cueErrors(err, nil)
	}
	errs := e.checkRecords(big)
	bad := map[string]bool{}
	for _, err := range errs {
		bad[tenantOf(err.path)] = true
	}
	for it.Next() {
		if e.halted() {
			break // the watchdog reports it; nothing here is used
		}
		name := it.Selector().Unquoted()
		v := it.Value()
		if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
			errs = append(errs, cueErrors(err, nil)...)
			validateTree(v, nil, &errs)
			continue
		}
		if !bad[name] {
			valid[name] = v
		}
	}
	return valid, errs
}

// tenantsTop is what a tenant file holds at its top level: "package
// tenants" and nothing but tenants.
var tenantsTop = topLevel{
	pkg:     "tenants",
	fields:  map[string]bool{"tenants": true},
	unknown: "unknown top-level field; a spec file fills only tenants: NAME: {...}",
	missing: "missing \"package tenants\" at the top of the file",
	other:   "package %s; tenant files are \"package tenants\" (the operator's file is site.cue, \"package site\")",
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

// halted reports whether a budget passed while evaluating.
func (e *evaluator) halted() bool {
	select {
	case <-e.halt:
		return true
	default:
		return false
	}
}

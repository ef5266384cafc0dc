package compiler

import (
	"fmt"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/ast/astutil"
	"cuelang.org/go/cue/parser"
)

// Some of CUE's regexp builtins return far more than they are given:
// regexp.ReplaceAll("", text, repl) puts repl between every two bytes
// of text, and FindAll("", text, -1) returns a match per byte. Go builds
// each result in a few large allocations, each one larger than the one
// before, which the memory budget's watchdog (budget.go) sees only once
// made: 8,000 bytes of replacement over 128 KiB of text took 1.8 GB
// against a 1 GiB budget (issue 27, finding 5). So every call of these
// builtins in a tenant's file is rewritten, before CUE sees it, to call
// the builtin only when the text's size times the replacement's (or the
// pattern's, which bounds the groups of each match) is within
// maxRegexpProduct, and to fail at the call otherwise. checkBuiltins
// refuses these builtins anywhere but in a call.

// maxRegexpProduct bounds (text bytes + 1) × (replacement or pattern
// bytes + 1) for the builtins in growingRegexp: their results are then
// at most a few times this many bytes (a replacement's $1 repeats a
// match, not more than the text), or this many matches. A DNS name or
// TXT string rewritten by a short pattern is far below it.
const maxRegexpProduct = 1 << 24

// regexpArgs says which arguments of a builtin in growingRegexp are
// multiplied: the text searched and the other one.
type regexpArgs struct {
	text, other int
	otherName   string // what the message calls the other one
}

// growingRegexp holds the regexp builtins whose result can be larger
// than their arguments by more than a constant factor.
var growingRegexp = map[string]*regexpArgs{
	"ReplaceAll":           {text: 1, other: 2, otherName: "replacement"},
	"ReplaceAllLiteral":    {text: 1, other: 2, otherName: "replacement"},
	"FindAll":              {text: 1, other: 0, otherName: "pattern"},
	"FindAllSubmatch":      {text: 1, other: 0, otherName: "pattern"},
	"FindAllNamedSubmatch": {text: 1, other: 0, otherName: "pattern"},
}

// regexpGuard is what a call becomes: ARGS holds the arguments,
// evaluated once, and only one of the two comprehensions yields. The
// identifiers CUE predeclares are written with __, which no field can
// shadow.
const regexpGuard = `{
	let ARGS = [0]
	if (__len(ARGS[TEXT])+1)*(__len(ARGS[OTHER])+1) <= LIMIT {CALL(ARGS[0], ARGS[1], ARGS[2])}
	if (__len(ARGS[TEXT])+1)*(__len(ARGS[OTHER])+1) > LIMIT {__error("MSG")}
}`

// guardRegexp rewrites every call in f of a builtin in growingRegexp
// (with three arguments: CUE refuses other counts without calling it)
// into regexpGuard. The guard's nodes carry the call's position, so
// that its failure is reported at the call.
func guardRegexp(f *ast.File) {
	names := importNames(f, "regexp")
	if len(names) == 0 {
		return
	}
	let := freeName(f, "siteRegexpArgs")
	astutil.Apply(f, nil, func(c astutil.Cursor) bool {
		call, ok := c.Node().(*ast.CallExpr)
		if !ok || len(call.Args) != 3 {
			return true
		}
		name := selected(names, call.Fun)
		if args := growingRegexp[name]; args != nil {
			c.Replace(guardCall(call, name, args, let))
		}
		return true
	})
}

// guardCall returns regexpGuard around call, a call of builtin name,
// its let clause named let.
func guardCall(call *ast.CallExpr, name string, args *regexpArgs, let string) ast.Expr {
	msg := fmt.Sprintf(`regexp.%[1]s was given \(__len(%[2]s[%[3]d])) bytes of text and a %[4]s of \(__len(%[2]s[%[5]d])) bytes: `+
		`its result can grow to their product, built in steps the memory budget cannot stop in time; `+
		`(text bytes + 1) times (%[4]s bytes + 1) may be at most %[6]d: give it shorter text`,
		name, let, args.text, args.otherName, args.other, maxRegexpProduct)
	src := regexpGuard
	for _, r := range []struct{ from, to string }{
		{"ARGS", let}, {"TEXT", strconv.Itoa(args.text)}, {"OTHER", strconv.Itoa(args.other)},
		{"LIMIT", strconv.Itoa(maxRegexpProduct)}, {`"MSG"`, `"` + msg + `"`},
	} {
		src = strings.ReplaceAll(src, r.from, r.to)
	}
	x, err := parser.ParseExpr("regexp guard", src)
	if err != nil {
		panic(fmt.Sprintf("regexpGuard does not parse: %v", err)) // a bug in the template
	}
	pos := call.Pos()
	ast.Walk(x, func(n ast.Node) bool { ast.SetPos(n, pos); return true }, nil)
	// Splice the call's own nodes in, once the template's are found:
	// its arguments, resolved in the file, and the builtin it names.
	var lets []*ast.LetClause
	var calls []*ast.CallExpr
	ast.Walk(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.LetClause:
			lets = append(lets, n)
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "CALL" {
				calls = append(calls, n)
			}
		}
		return true
	}, nil)
	for _, l := range lets {
		l.Expr = ast.NewList(call.Args...)
	}
	for _, c := range calls {
		c.Fun = call.Fun
	}
	return x
}

// freeName returns base, or base with a number after it, whichever
// first is no identifier in f: the guard's let must not capture a
// reference the tenant wrote.
func freeName(f *ast.File, base string) string {
	used := map[string]bool{}
	ast.Walk(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	}, nil)
	name := base
	for i := 2; used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	return name
}

package compiler

import (
	"fmt"
	"reflect"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/scanner"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
)

// Limits on the syntax of one spec, checked before CUE sees it. CUE
// parses, resolves, compiles and evaluates by recursion, and its parser
// limits only the nesting of brackets (to 10,000): a sum of a million
// terms parses but overflows the Go stack when compiled, a chain of a
// million selectors (a.a.a...) when the parser resolves names. A stack
// overflow is a fatal error that no recover can catch, so both are
// refused before: checkTokens before parsing, checkDepth after it. Real
// specs nest about a dozen levels and are well under a MB.
const (
	// maxChain bounds checkTokens' estimate of how deep the parser will
	// nest a node: the tokens since the last comma, summed over the
	// enclosing brackets. It over-counts (a field a: 1 is three tokens,
	// two levels), so it is looser than maxDepth, which the syntax tree
	// is then held to.
	maxChain = 10 * maxDepth
	// maxDepth bounds the nesting of the syntax tree: a struct level is
	// two (field and struct), each operator of a chain one.
	maxDepth = 1000
	// maxFileSize bounds one spec file, so that a huge file is refused
	// before it is read, not when it has filled the memory budget.
	maxFileSize = 64 << 20
)

// checkDepth returns a diagnostic at the first node of f nested deeper
// than maxDepth. The walk itself never descends below maxDepth.
func checkDepth(path string, f *ast.File) *Diagnostic {
	var deep ast.Node
	depth := 0
	ast.Walk(f, func(n ast.Node) bool {
		if deep != nil {
			return false
		}
		if depth == maxDepth {
			deep = n
			return false
		}
		depth++
		return true
	}, func(ast.Node) { depth-- })
	if deep == nil {
		return nil
	}
	p := deep.Pos()
	return &Diagnostic{
		Pos: model.Pos{File: path, Line: max(p.Line(), 1), Col: max(p.Column(), 1)},
		Msg: fmt.Sprintf("nested more than %d levels deep (structs, lists, or a long chain of operators); split it into named fields", maxDepth),
	}
}

// checkTokens scans src (without parsing it) and returns a diagnostic
// at the first token whose chain passes maxChain. Commas, written or
// inserted at line ends, end a chain: list elements and fields do not
// nest each other.
func checkTokens(path string, src []byte) *Diagnostic {
	type level struct {
		count  int
		interp bool // the parenthesised expression of "...\(...)..."
	}
	var s scanner.Scanner
	file := token.NewFile(path, -1, len(src))
	s.Init(file, src, nil, 0) // the parser reports syntax errors
	stack := []level{{}}
	sum := 0
	for {
		pos, tok, _ := s.Scan()
		top := &stack[len(stack)-1]
		switch tok {
		case token.EOF:
			return nil
		case token.COMMA:
			sum -= top.count
			top.count = 0
			continue
		case token.INTERPOLATION:
			// "abc\( is followed by ( and an expression; Scan returns
			// the ) that ends it, ResumeInterpolation the string after.
			top.count++
			sum++
			stack = append(stack, level{interp: true})
			if _, tok, _ := s.Scan(); tok != token.LPAREN {
				return nil // malformed: the parser will say so
			}
		case token.LBRACE, token.LBRACK, token.LPAREN:
			top.count++
			sum++
			stack = append(stack, level{})
		case token.RBRACE, token.RBRACK, token.RPAREN:
			if len(stack) == 1 {
				return nil // unbalanced: the parser will say so
			}
			sum -= top.count
			interp := top.interp
			stack = stack[:len(stack)-1]
			if interp && tok == token.RPAREN {
				if rest := s.ResumeInterpolation(); len(rest) > 0 && rest[len(rest)-1] == '(' {
					stack = append(stack, level{interp: true})
					if _, tok, _ := s.Scan(); tok != token.LPAREN {
						return nil
					}
				}
			}
			continue
		default:
			top.count++
			sum++
		}
		if sum > maxChain {
			return &Diagnostic{
				Pos: model.Pos{File: path, Line: max(pos.Line(), 1), Col: max(pos.Column(), 1)},
				Msg: fmt.Sprintf("more than %d tokens chained in one expression (operators, selectors, labels or brackets without a comma between); split it into named fields", maxChain),
			}
		}
	}
}

// stringsShare is the part of the memory budget (1/stringsShare) the
// strings of the tenants every file of one load evaluates to may add up
// to, each counted as often as the tenants use it.
//
// CUE shares a value between the places that refer to it, so a string
// of 4 MiB given to 1,000 VMs (a comprehension of three lines)
// evaluates in a second and a few MB, within every budget; but what
// follows the evaluation handles each use of it on its own: the cache
// wrote 4 GiB for that file, in 100 s and 10 GB of memory, and diff
// built a 4 MiB seed for every VM, 7 GB. Counted per use, the strings
// bound that work: a sixteenth of the default budget is 64 MiB, the
// most a spec file may hold, and real specs hold a few MB. The bound is
// for the files together, as that work is done for all of them in one
// run: held per file, ten files just within it took vet 2 GB of memory
// and wrote 560 MB to the cache, and a pull request adds files freely.
const stringsShare = 16

// withinStrings returns r with its strings counted, or when the strings
// of its tenants add up to more than limit bytes, a result with no
// tenants and a diagnostic at the file that says so. A result read from
// the cache holds the count made before it was stored (an entry is
// stored only within the budget of its run, so the count is exact) and
// is not walked again: the walk was a tenth of a cached load.
func (r *fileResult) withinStrings(limit uint64) *fileResult {
	if r == nil || r.tenants == nil {
		return r
	}
	n := r.strings // counted before it was cached
	if n == 0 {
		n = stringBytes(reflect.ValueOf(r.tenants), limit)
	}
	if n <= limit {
		r.strings = n
		return r
	}
	return r.refused(fmt.Sprintf("this file evaluates to more than %s of strings (a value counts once per use), the most a memory budget of %s allows: give a long value (cloud-init user_data, say) to fewer VMs or records, or, if it is legitimately this large, raise the budget with --eval-memory",
		FormatSize(limit), FormatSize(limit*stringsShare)))
}

// stringsTogether refuses, in input order, each of results whose
// strings (withinStrings counted them) would take the sum of those not
// refused past limit, and takes its key out of toCache (nil without a
// cache): it is refused for what the other files hold, not for what
// the key hashes.
func stringsTogether(results []*fileResult, limit uint64, toCache []string) {
	var total uint64
	for i, r := range results {
		if r == nil || r.strings == 0 {
			continue
		}
		if total+r.strings <= limit {
			total += r.strings
			continue
		}
		results[i] = r.refused(fmt.Sprintf("this file and the files loaded before it evaluate to more than %s of strings (a value counts once per use), the most a memory budget of %s allows one load: give a long value (cloud-init user_data, say) to fewer VMs or records, or, if the specs are legitimately this large, raise the budget with --eval-memory",
			FormatSize(limit), FormatSize(limit*stringsShare)))
		if toCache != nil {
			toCache[i] = ""
		}
	}
}

// refused is r without its tenants, with msg at its first line.
func (r *fileResult) refused(msg string) *fileResult {
	return &fileResult{path: r.path, pos: &positions{file: r.path}, diags: Diagnostics{{
		Pos: model.Pos{File: r.path, Line: 1, Col: 1},
		Msg: msg,
	}}}
}

// stringBytes adds up the lengths of the strings in v (map keys
// included), each as often as v holds it, and stops counting once the
// sum passes limit, returning limit+1 then.
func stringBytes(v reflect.Value, limit uint64) uint64 {
	var n uint64
	var walk func(reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.String:
			n += uint64(v.Len())
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				return walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if !walk(v.Field(i)) {
					return false
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				if !walk(v.Index(i)) {
					return false
				}
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				if !walk(it.Key()) || !walk(it.Value()) {
					return false
				}
			}
		}
		return n <= limit
	}
	if !walk(v) {
		return limit + 1
	}
	return n
}

package compiler

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
	"github.com/site-tools/site/compiler/spelling"
)

// This file turns CUE's errors into diagnostics a user can act on:
// positioned in the user's file, with plain messages where CUE's would
// print the schema, and without the noise of defaults and disjunctions.

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

// syntaxErrors converts the errors of parsing one file, keeping only
// the first. After a syntax error CUE's parser resynchronises poorly and
// what it reports next is mostly that error again: one missing ] gave
// "missing ',' in list literal" on every line to the end of the struct
// and then "expected operand, found '}'", burying the one that matters.
// CUE sorts the errors by position, so the first is where the file
// stopped parsing.
func syntaxErrors(err error) []cueError {
	errs := cueErrors(err, nil)
	if len(errs) > 1 {
		errs = errs[:1]
	}
	return errs
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
// on the error's path. schema is the schema the file was checked
// against, which says what a misspelt field may have meant; the zero
// Value (for syntax errors) suggests nothing.
func fromCUE(errs []cueError, pos *positions, schema cue.Value) Diagnostics {
	var diags Diagnostics
	seen := map[string]bool{}
	for _, e := range errs {
		path, msg := e.path, e.msg
		if strings.Contains(msg, "errors in empty disjunction") {
			continue // a summary line: the errors of each branch follow it
		}
		// An error at no path (the file's own) has no field to name,
		// nor a bound or a struct of the schema to look up.
		last := ""
		if len(path) > 0 {
			last = path[len(path)-1]
		}
		switch {
		case credentialFields[last] && strings.Contains(msg, "mismatched types"):
			// Both branches of #Cred fail alike; say it once, plainly.
			key := cuePath(path...)
			if seen[key] {
				continue
			}
			seen[key] = true
			msg = "a credential is a reference, {env: \"NAME\"} or {vault: {vault: \"NAME\", path: \"...\", key: \"...\"}}, never the secret itself"
		case credentialFields[last] && strings.Contains(msg, "incomplete value"):
			msg = "a credential names where the secret is: {env: \"NAME\"} or {vault: {vault: \"NAME\", path: \"...\", key: \"...\"}}"
		case len(path) >= 4 && path[0] == "vaults" && last == "vault" && msg == "field not allowed":
			msg = "site logs in to a store with a credential from the environment, {env: \"NAME\"}: a store cannot hold its own key"
		case typeMismatch.MatchString(msg):
			if plain, ok := zoneFileForm(msg, path, schema); ok {
				msg = plain
			} else if plain, ok := notPatterned(msg); ok {
				msg = plain
			} else if plain, ok := wrongKind(msg, path); ok {
				msg = plain
			}
		case (last == "provider" || last == "host") && patternMismatch.MatchString(msg):
			// Most likely the old language: a URL where a name goes.
			msg = fmt.Sprintf("%s: want the name of a %s that site.cue grants this tenant; its URL and credentials live in the operator's site.cue (%ss: NAME: ...)",
				patternMismatch.FindStringSubmatch(msg)[1], last, last)
		case len(path) > 0 && outOfBound.MatchString(msg):
			if plain, ok := outOfRange(outOfBound.FindStringSubmatch(msg)[1], path, schema); ok {
				msg = plain
			}
		case patternMismatch.MatchString(msg):
			// Say what the pattern means rather than print it.
			m := patternMismatch.FindStringSubmatch(msg)
			if want, ok := patternWords[m[2]]; ok {
				msg = m[1] + ": want " + want
			}
		case len(path) >= 3 && path[len(path)-3] == "records" && msg == "field not allowed":
			// A name's fields are its types: say which there are.
			switch lower := strings.ToLower(last); {
			case rdata.IsType(strings.ToUpper(last)):
				msg = "record types are written in upper case: " + strings.ToUpper(last)
			case lower == "ttl" || lower == "ttls" || lower == "proxied":
				msg = lower + " is written in lower case: " + lower
			case spelling.Nearest(last, schemaFields(schema, path[:len(path)-1])) != "":
				msg = fmt.Sprintf("%s is not a record type site manages: did you mean %s?", last, spelling.Nearest(last, schemaFields(schema, path[:len(path)-1])))
			default:
				msg = last + " is not a record type site manages; a name takes ttl, ttls, proxied and the types " + strings.Join(rdata.Types, ", ")
			}
		case len(path) >= 4 && path[len(path)-3] == "networks" && last == "mode" && strings.Contains(msg, "conflicting values"):
			// One line, not one per branch of the disjunction.
			key := cuePath(path...)
			if seen[key] {
				continue
			}
			seen[key] = true
			msg = "mode is \"nat\" (the default), \"isolated\" or \"bridge\""
		case len(path) >= 4 && path[len(path)-3] == "networks" && last == "cidr" && strings.Contains(msg, "required but not present"):
			msg = "a nat or isolated network needs its IPv4 prefix: cidr: \"10.77.0.0/24\""
		case len(path) >= 4 && path[len(path)-3] == "networks" && last == "bridge" && strings.Contains(msg, "required but not present"):
			msg = "a bridge network names the existing host bridge its guests join: bridge: \"br0\""
		case last == "autostart" && strings.Contains(msg, "required but not present"):
			msg = "autostart must be declared, true or false: it has no default, because a default hides drift (INCIDENTS.md 3)"
		case last == "provider" && strings.Contains(msg, "required but not present"):
			msg = "name the zone's provider, one that site.cue grants this tenant: provider: \"NAME\""
		case strings.Contains(msg, "required but not present"):
			msg = last + " is required; add it"
		case len(path) > 0 && msg == "field not allowed" && !underCredential(path):
			msg = notAllowed(last, schemaFields(schema, path[:len(path)-1]))
		}
		d := Diagnostic{Path: cuePath(path...), Msg: msg}
		var inFile []model.Pos
		for _, p := range e.pos {
			if p.IsValid() && p.Filename() == pos.file {
				at := model.Pos{File: pos.file, Line: p.Line(), Col: p.Column()}
				if !slices.Contains(inFile, at) {
					inFile = append(inFile, at)
				}
			}
		}
		if len(inFile) > 0 {
			d.Pos = inFile[0]
		} else {
			d.Pos = pos.pos(path...)
		}
		if m := conflict.FindStringSubmatch(msg); m != nil && m[3] == "" && len(inFile) > 1 &&
			literalValue.MatchString(m[1]) && literalValue.MatchString(m[2]) {
			// Both values are the user's: one field written twice
			// (a key repeated in a struct), which CUE unifies rather
			// than overrides. Name both places.
			d.Msg = fmt.Sprintf("written twice with different values, %s and %s (CUE merges a field written twice); keep one", m[1], m[2])
			d.Related = inFile[1:]
		} else if m := listLengths.FindStringSubmatch(msg); m != nil && len(inFile) == 1 {
			// CUE positions only one of the lists; the index knows
			// where the field was first written. On another line, that
			// is the other writing.
			if first := pos.pos(path...); first.Line > 0 && first.Line != d.Pos.Line {
				d.Msg = fmt.Sprintf("written twice with different lists, of %s and %s values (CUE merges a field written twice); keep one", m[1], m[2])
				d.Related = []model.Pos{first}
			}
		}
		diags = append(diags, d)
	}
	diags = keepClearest(tidyCredentials(diags))
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

// notAllowed says that field is not one of those the schema allows
// beside it, fields, and which of them it most likely meant, or which
// there are when it comes near none.
func notAllowed(field string, fields []string) string {
	if near := spelling.Nearest(field, fields); near != "" {
		return "field not allowed: did you mean " + near + "?"
	}
	if len(fields) == 0 {
		return "field not allowed"
	}
	return "field not allowed: the fields here are " + strings.Join(fields, ", ")
}

// underCredential reports whether path lies inside a credential, whose
// "field not allowed" errors are the branches of #Cred rejecting each
// other's field (tidyCredentials).
func underCredential(path []string) bool {
	for _, label := range path[:max(len(path)-1, 0)] {
		if credentialFields[label] {
			return true
		}
	}
	return false
}

// schemaFields lists, in the schema's order, the fields schema allows
// in the struct at path (schemaAt); nil where the schema has no struct.
func schemaFields(schema cue.Value, path []string) []string {
	v := schemaAt(schema, path)
	if !v.Exists() {
		return nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var fields []string
	for it.Next() {
		fields = append(fields, it.Selector().Unquoted())
	}
	return fields
}

// schemaAt is what schema wants at path, a path into the user's file:
// a label the schema names is followed as such, any other through the
// schema's pattern ([string]: #VM) or list element. It does not exist
// where the schema has nothing there.
func schemaAt(schema cue.Value, path []string) cue.Value {
	if !schema.Exists() {
		return cue.Value{}
	}
	v := schema
	for _, label := range path {
		next := cue.Value{}
		for _, sel := range []cue.Selector{cue.Str(label), cue.Str(label).Optional(), cue.Str(label).Required(), cue.AnyString, cue.AnyIndex} {
			if w := v.LookupPath(cue.MakePath(sel)); w.Exists() {
				next = w
				break
			}
		}
		if !next.Exists() {
			return cue.Value{}
		}
		v = next
	}
	return v
}

// tidyCredentials untangles the errors of #Cred, a disjunction of
// {env} and {vault}: each branch rejects the other's field, so a bad
// env name also reads "env: field not allowed", and a credential with
// both fields gets two such errors. Those are dropped beside a real
// error, and both-fields becomes one plain message.
func tidyCredentials(diags Diagnostics) Diagnostics {
	// root returns the path of the credential an error lies under and the
	// branch field (env or vault) right below it.
	root := func(path string) (string, string) {
		for _, branch := range []string{".env", ".vault"} {
			if i := strings.LastIndex(path, branch); i > 0 {
				cred := path[:i]
				if credentialFields[cred[strings.LastIndex(cred, ".")+1:]] {
					return cred, branch[1:]
				}
			}
		}
		return "", ""
	}
	notAllowed := map[string]map[string]bool{} // credential -> branches "not allowed"
	other := map[string]bool{}                 // credential -> has another error
	for _, d := range diags {
		cred, branch := root(d.Path)
		switch {
		case cred == "":
		case d.Msg == "field not allowed" && d.Path == cred+"."+branch:
			if notAllowed[cred] == nil {
				notAllowed[cred] = map[string]bool{}
			}
			notAllowed[cred][branch] = true
		default:
			other[cred] = true
		}
	}
	out := diags[:0]
	for _, d := range diags {
		cred, branch := root(d.Path)
		if cred == "" || d.Msg != "field not allowed" || d.Path != cred+"."+branch {
			out = append(out, d)
			continue
		}
		switch {
		case other[cred]:
			// the real error is reported beside it
		case notAllowed[cred]["env"] && notAllowed[cred]["vault"]:
			if branch == "env" {
				d.Path = cred
				d.Msg = "a credential is {env: \"NAME\"} or {vault: {vault: \"NAME\", path: \"...\", key: \"...\"}}, not both; keep one"
				out = append(out, d)
			}
		default:
			out = append(out, d)
		}
	}
	return out
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
	conflict     = regexp.MustCompile(`^conflicting values (.+?) and (.+?)( \(mismatched types .*\))?$`)
	typeMismatch = regexp.MustCompile(`^conflicting values (.+) and (.+) \(mismatched types (\w+) and (\w+)\)$`)
	literalValue = regexp.MustCompile(`^(-?[0-9.]+|".*"|true|false|null)$`)
	listLengths  = regexp.MustCompile(`^incompatible list lengths \(([0-9]+) and ([0-9]+)\)$`)
)

// kindWords says in words what a schema kind wants.
var kindWords = map[string]string{
	"string": "a string", "int": "a whole number", "number": "a number", "float": "a number",
	"bool": "true or false", "bytes": "bytes", "list": "a list", "struct": "a struct {...}",
}

// wrongKind rewrites CUE's "conflicting values A and B (mismatched types
// K and L)" as "got X, want Y": CUE names both sides in either order and
// prints the schema's side as a type ([...string], {host!: string},
// int), which a user reads as noise. It says which side was written and
// what the schema wants, and for a lone value where a list goes, how to
// write it. ok is false when neither side is clearly the schema's. path
// is where the value was written.
func wrongKind(msg string, path []string) (plain string, ok bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	isSchema := func(v string) bool {
		return strings.HasPrefix(v, "[...") || strings.HasPrefix(v, "#") || (kindWords[v] != "" && v != "list" && v != "struct") ||
			strings.HasPrefix(v, "{") && (strings.Contains(v, "!:") || strings.Contains(v, "?:") || strings.Contains(v, "...") ||
				strings.Contains(v, "#") || strings.Contains(v, "[string]"))
	}
	var got, kind, schema string
	switch {
	case isSchema(m[1]) && !isSchema(m[2]):
		got, kind, schema = m[2], m[3], m[1]
	case isSchema(m[2]) && !isSchema(m[1]):
		got, kind, schema = m[1], m[4], m[2]
	default:
		return "", false
	}
	want := kindWords[kind]
	if want == "" {
		want = "a " + kind
	}
	switch {
	case kind == "list" && strings.HasPrefix(got, "{") && !strings.HasPrefix(schema, "[...{") && !strings.HasPrefix(schema, "[...#"):
		// A struct where a list of values goes: in a list it would
		// still be a struct. Most likely a record as other tools write
		// one, {ttl, values}.
		return structForValues(got, path), true
	case kind == "list":
		return fmt.Sprintf("got %s, want %s: write [%s]", got, want, got), true
	case strings.HasPrefix(got, "[") && kind != "struct":
		return fmt.Sprintf("got the list %s, want %s (one value, not a list)", got, want), true
	}
	return fmt.Sprintf("got %s, want %s", got, want), true
}

// notPatterned rewrites CUE's "conflicting values 2048 and =~"..."
// (mismatched types int and string)", a value that is no string where
// the schema wants a string of a pattern, as what the pattern wants in
// words (patternWords): a memory of 2048 is told to write "2GiB", not
// shown the regular expression.
func notPatterned(msg string) (plain string, ok bool) {
	m := typeMismatch.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	got, re := m[1], m[2]
	if strings.HasPrefix(got, "=~") {
		got, re = re, got
	}
	want := patternWords[strings.TrimPrefix(re, "=~")]
	if want == "" || !strings.HasPrefix(re, "=~") || !literalValue.MatchString(got) {
		return "", false
	}
	if _, err := strconv.ParseFloat(got, 64); err == nil {
		return fmt.Sprintf("got the bare number %s, want %s", got, want), true
	}
	return fmt.Sprintf("got %s, want %s", got, want), true
}

// structForValues says how to write the struct got, written at path
// where a list of values goes. For a record type written as octoDNS and
// DNSControl write a record ({ttl: 60, values: [...]}, or value: "..."),
// it spells the language's form out: the values as the type's list, the
// ttl beside the name's types.
func structForValues(got string, path []string) string {
	msg := fmt.Sprintf("got %s, want a list of values, not a struct", got)
	if len(path) < 3 || path[len(path)-3] != "records" || !rdata.IsType(path[len(path)-1]) {
		return msg
	}
	name, typ := path[len(path)-2], path[len(path)-1]
	values := topField(got, "values")
	if v := topField(got, "value"); values == "" && v != "" {
		values = "[" + v + "]"
	}
	if values == "" {
		values = "[...]"
	}
	msg += fmt.Sprintf(": write %s: %s", typ, values)
	if ttl := topField(got, "ttl"); ttl != "" {
		msg += fmt.Sprintf(", and the ttl beside the name's types: %s: {ttl: %s, %s: [...]}", cueLabel(name), ttl, typ)
	}
	return msg
}

// topField is the value of field in s, a struct as CUE prints it in a
// message ({a:1,b:["x"]}), or "" when s has no such field at its top.
func topField(s, field string) string {
	value := ""
	scanPrinted(s, func(i int, c byte, depth int) bool {
		if (c == '{' && depth == 0 || c == ',' && depth == 1) && strings.HasPrefix(s[i+1:], field+":") {
			value = valueAt(s[i+1+len(field)+1:])
			return false
		}
		return true
	})
	return value
}

// valueAt is the value at the start of s, up to the comma or brace that
// ends it at its own depth.
func valueAt(s string) string {
	end := len(s)
	scanPrinted(s, func(i int, c byte, depth int) bool {
		if (c == ',' || c == '}') && depth == 0 {
			end = i
			return false
		}
		return true
	})
	return s[:end]
}

// scanPrinted walks s, a value as CUE prints it, and calls visit with
// each byte outside a string and the depth of braces and brackets it
// stands at, until visit returns false. One walk for topField and
// valueAt, so both skip strings (and the escapes in them) alike.
func scanPrinted(s string, visit func(i int, c byte, depth int) bool) {
	depth, inString := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		if !visit(i, c, depth) {
			return
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
}

// outOfBound matches CUE's message for a number past a bound of the
// schema, "invalid value 0 (out of bound >=1)"; schemaBound finds the
// bounds in the schema as CUE prints it ("uint & >=1 & <=2147483647",
// "*0 | uint8").
var (
	outOfBound  = regexp.MustCompile(`^invalid value (-?[0-9.]+) \(out of bound [<>]=?-?[0-9.]+\)$`)
	schemaBound = regexp.MustCompile(`(>=|<=|\buint(?:8|16|32)?\b)(-?[0-9]*)`)
)

// outOfRange says in words which whole numbers the schema allows at
// path, where got is not one of them: "ttl 0 is out of range; use 1 to
// 2147483647 seconds" rather than CUE's "(out of bound >=1)", which
// gives one bound, as a comparison. ok is false
// where the schema's bounds are not found.
func outOfRange(got string, path []string, schema cue.Value) (plain string, ok bool) {
	v := schemaAt(schema, path)
	if !v.Exists() {
		return "", false
	}
	lo, hi := "", ""
	for _, m := range schemaBound.FindAllStringSubmatch(fmt.Sprint(v), -1) {
		switch m[1] {
		case ">=":
			lo = m[2]
		case "<=":
			hi = m[2]
		case "uint8":
			lo, hi = "0", "255"
		case "uint16":
			lo, hi = "0", "65535"
		case "uint32":
			lo, hi = "0", "4294967295"
		case "uint":
			if lo == "" {
				lo = "0"
			}
		}
	}
	last := path[len(path)-1]
	unit := ""
	if last == "ttl" || len(path) >= 2 && path[len(path)-2] == "soa" {
		unit = " seconds"
	}
	switch {
	case lo != "" && hi != "":
		return fmt.Sprintf("%s %s is out of range; use %s to %s%s", last, got, lo, hi, unit), true
	case lo != "":
		return fmt.Sprintf("%s %s is out of range; use %s%s or more", last, got, lo, unit), true
	case hi != "":
		return fmt.Sprintf("%s %s is out of range; use at most %s%s", last, got, hi, unit), true
	}
	return "", false
}

// patternMismatch matches CUE's message for a string that fails a
// schema regex; patternWords says in words what each regex of the
// schema wants.
var (
	patternMismatch = regexp.MustCompile(`^invalid value (".*") \(out of bound =~(".*")\)$`)
	patternWords    = map[string]string{
		`"^https?://[^ ]+$"`:                     "an http:// or https:// URL",
		`"^[a-z0-9][a-z0-9_-]*$"`:                "a name: lower case letters, digits, '_' and '-'",
		`"^[A-Za-z_][A-Za-z0-9_]*$"`:             "an environment variable name: letters, digits and _, not starting with a digit",
		`"^[0-9]+(KiB|MiB|GiB|TiB)$"`:            `a size with a binary unit, like "512MiB" or "2GiB"`,
		`"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$"`: `a MAC address like "52:54:00:12:34:56"`,
		`"^[a-z0-9][a-z0-9_-]*/[^/:\\s]{1,15}$"`: `a host and one of its bridges, "HOST/BRIDGE" like "kvm1/br0" (a bridge is a Linux interface name: 1 to 15 bytes, not "." or "..", none of them '/', ':' or white space)`,
	}
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

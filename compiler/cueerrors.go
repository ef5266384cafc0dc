package compiler

import (
	"fmt"
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
		if strings.Contains(e.msg, "errors in empty disjunction") {
			continue // a summary line: the errors of each branch follow it
		}
		msg, ok := plainMessage(e.path, e.msg, schema, seen)
		if !ok {
			continue
		}
		diags = append(diags, placeDiagnostic(e, msg, pos))
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

// plainMessage says CUE's message msg, for the error at path, in words
// a user can act on, or returns msg itself where it has none better. ok
// is false for an error already said once at its path (seen): both
// branches of a disjunction fail alike.
func plainMessage(path []string, msg string, schema cue.Value, seen map[string]bool) (plain string, ok bool) {
	// An error at no path (the file's own) has no field to name,
	// nor a bound or a struct of the schema to look up.
	last := ""
	if len(path) > 0 {
		last = path[len(path)-1]
	}
	// once reports whether the error at path is said for the first time.
	once := func() bool {
		key := cuePath(path...)
		if seen[key] {
			return false
		}
		seen[key] = true
		return true
	}
	switch {
	case credentialFields[last] && strings.Contains(msg, "mismatched types"):
		// Both branches of #Cred fail alike; say it once, plainly.
		if !once() {
			return "", false
		}
		msg = "a credential is a reference, {env: \"NAME\"} or {vault: {vault: \"NAME\", path: \"...\", key: \"...\"}}, never the secret itself"
	case credentialFields[last] && strings.Contains(msg, "incomplete value"):
		msg = "a credential names where the secret is: {env: \"NAME\"} or {vault: {vault: \"NAME\", path: \"...\", key: \"...\"}}"
	case len(path) >= 4 && path[0] == "vaults" && last == "vault" && msg == "field not allowed":
		msg = "site logs in to a store with a credential from the environment, {env: \"NAME\"}: a store cannot hold its own key"
	case typeMismatch.MatchString(msg):
		msg = mismatchInWords(msg, path, schema)
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
		msg = notARecordType(last, path, schema)
	case len(path) >= 4 && path[len(path)-3] == "networks" && last == "mode" && strings.Contains(msg, "conflicting values"):
		// One line, not one per branch of the disjunction.
		if !once() {
			return "", false
		}
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
	return msg, true
}

// mismatchInWords rewrites CUE's "conflicting values A and B
// (mismatched types K and L)" by the first rewrite that applies: a
// zone file's form, a pattern's words, the kind wanted. It returns msg
// where none does.
func mismatchInWords(msg string, path []string, schema cue.Value) string {
	if plain, ok := zoneFileForm(msg, path, schema); ok {
		return plain
	} else if plain, ok := notPatterned(msg); ok {
		return plain
	} else if plain, ok := wrongKind(msg, path); ok {
		return plain
	}
	return msg
}

// notARecordType says why field, written among a name's fields at path
// (records.NAME.FIELD), is not allowed: a name's fields are its types,
// so it says which there are.
func notARecordType(last string, path []string, schema cue.Value) string {
	switch lower := strings.ToLower(last); {
	case rdata.IsType(strings.ToUpper(last)):
		return "record types are written in upper case: " + strings.ToUpper(last)
	case lower == "ttl" || lower == "ttls" || lower == "proxied":
		return lower + " is written in lower case: " + lower
	case spelling.Nearest(last, schemaFields(schema, path[:len(path)-1])) != "":
		return fmt.Sprintf("%s is not a record type site manages: did you mean %s?", last, spelling.Nearest(last, schemaFields(schema, path[:len(path)-1])))
	}
	return last + " is not a record type site manages; a name takes ttl, ttls, proxied and the types " + strings.Join(rdata.Types, ", ")
}

// placeDiagnostic positions e, reworded as msg, in the user's file:
// the first of its positions there, else the user's nearest element on
// its path. Where both sides of a conflict are the user's, it names
// both places.
func placeDiagnostic(e cueError, msg string, pos *positions) Diagnostic {
	path := e.path
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
	return d
}

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

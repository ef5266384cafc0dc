package compiler

import "strings"

// This file drops the noise CUE's disjunctions and defaults add to
// an error, keeping the error a user should act on.

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

package dnsname

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/net/idna"
)

// A label that mixes scripts can look like another name: "pаypal" with a
// Cyrillic "а" is not "paypal". Browsers show such labels as xn-- rather
// than trust them, following UTS #39's "highly restrictive" level, and
// site refuses them by the same rule (no library implements it; Go's
// unicode tables give each rune's Script property, which UTS #39 refines
// with Script_Extensions, a difference that matters for a few marks
// only): a label's letters are all of one script, Common and Inherited
// (digits, '-', combining marks) going with any, or of one of the
// combinations that write Chinese, Japanese or Korean, each of which may
// carry Latin.
var allowedMixes = [][]string{
	{"Latin", "Han", "Bopomofo"},             // Chinese
	{"Latin", "Han", "Hiragana", "Katakana"}, // Japanese
	{"Latin", "Han", "Hangul"},               // Korean
}

// checkScripts returns why the label, an A-label or plain ASCII, mixes
// scripts or holds a symbol, or "" when it does neither.
func checkScripts(label string) string {
	if !strings.HasPrefix(label, "xn--") {
		return "" // ASCII: Latin and Common only
	}
	u, err := idna.Punycode.ToUnicode(label)
	if err != nil {
		return "" // toASCII decoded it already; nothing else to say
	}
	set := map[string]bool{}
	for _, r := range u {
		if unicode.IsSymbol(r) {
			// Emoji and other symbols: IDNA 2008 disallows them, UTS #39
			// restricts them, and browsers show such names as xn--.
			return fmt.Sprintf("label %q holds the symbol %q, which IDNA 2008 does not allow in names; use letters and digits", u, r)
		}
		if s := script(r); s != "" && s != "Common" && s != "Inherited" {
			set[s] = true
		}
	}
	if len(set) <= 1 {
		return ""
	}
	for _, mix := range allowedMixes {
		covered := true
		for s := range set {
			if !slices.Contains(mix, s) {
				covered = false
				break
			}
		}
		if covered {
			return ""
		}
	}
	names := make([]string, 0, len(set))
	for s := range set {
		names = append(names, s)
	}
	sort.Strings(names)
	return fmt.Sprintf("label %q mixes the scripts %s, so it can pass for another name (UTS #39 highly restrictive, as browsers apply it); write each label in one script",
		u, strings.Join(names, ", "))
}

// script returns the name of r's Unicode script, "" if it has none.
func script(r rune) string {
	// The common cases first; Scripts is a map of some 160 tables.
	for _, name := range []string{"Latin", "Common", "Inherited", "Cyrillic", "Greek", "Han"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// Package dnsname turns DNS names as users write them into the one canonical
// spelling every other part of site compares, keys and writes: absolute,
// lower case, with a trailing dot, internationalised labels as A-labels
// ("xn--..."). Names are canonicalised once, when the spec is loaded, and
// only then compared, keyed or written. See INCIDENTS.md 2 ("Two spellings
// of one name"): two spellings of one name must never reach a backend.
//
// Canonical is the only way in; IsSubdomain, Relative and IsWildcard work on
// names that are already canonical and compare them with plain string
// operations.
package dnsname

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Limits from RFC 1035 §2.3.4, in presentation form: 253 octets without the
// final dot is 255 octets on the wire.
const (
	maxLabel = 63
	maxName  = 253
)

// profile maps and validates internationalised names the way a resolver
// would (UTS #46 non-transitional lookup, so "ß" stays "ß" and encodes as
// xn--zca). STD3 rules are off because they forbid "_", which service and
// policy labels (_dmarc, _sip._tcp) need; the character set is checked
// after mapping instead. Hyphen position rules are off because real names
// such as "r4---sn-abc.googlevideo.com." break them and DNS allows them.
var profile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.BidiRule(),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
)

// Error says why a name is not a valid DNS name and what to write instead.
type Error struct {
	Name   string // the name as written
	Reason string // what is wrong and what to do
}

func (e *Error) Error() string {
	return fmt.Sprintf("invalid DNS name %q: %s", e.Name, e.Reason)
}

// Canonical returns the canonical form of name: absolute, lower case, with
// a trailing dot and A-labels.
//
// "@" stands for origin. A name ending in "." is absolute; any other name
// is relative and qualified by origin. origin must itself be canonical, or
// "" when name has to be absolute. "*" is allowed only as the whole leftmost
// label (a wildcard). Labels may hold letters, digits, "-" and "_" after
// IDNA mapping; labels are at most 63 octets and the name at most 253.
// Below in-addr.arpa a label may also be an RFC 2317 classless block,
// "BASE/LEN" such as the "0/26" of "0/26.2.0.192.in-addr.arpa.": LEN 25
// to 32 and BASE a multiple of the block's size, written without leading
// zeros so that it has one spelling (see Classless). Its checks run in
// the order the name is rewritten (qualify, map, split, check labels),
// which reads best as one sequence.
func Canonical(name, origin string) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		return "", &Error{Name: name, Reason: fmt.Sprintf(format, args...)}
	}
	if name == "" {
		return fail("the name is empty; write a label, \"@\" for the zone apex, or an absolute name with a trailing dot")
	}
	if !utf8.ValidString(name) {
		return fail("the name is not valid UTF-8; save the file as UTF-8")
	}
	var full string
	switch {
	case name == "@":
		if origin == "" {
			return fail("\"@\" means the zone apex but there is no zone here; write the absolute name with a trailing dot")
		}
		return origin, nil
	case name == ".":
		return ".", nil
	case strings.HasSuffix(name, "."):
		full = name[:len(name)-1]
	case origin == "":
		return fail("a relative name needs a zone; write it absolute with a trailing dot: %q", name+".")
	case origin == ".":
		full = name
	default:
		full = name + "." + strings.TrimSuffix(origin, ".")
	}

	wildcard := full == "*" || strings.HasPrefix(full, "*.")
	rest := full
	if wildcard {
		rest = strings.TrimPrefix(strings.TrimPrefix(full, "*"), ".")
		if rest == "" && full != "*" {
			return fail("empty label after \"*\"; remove the extra dot")
		}
	}
	if err := checkEmptyLabels(rest); err != "" {
		return fail("%s", err)
	}

	out, err := toASCII(rest)
	if err != nil {
		return fail("not a valid internationalised name (%v); check the spelling, or write its xn-- form", err)
	}
	// Mapping can turn other dot-like runes (U+3002 "。") into label
	// separators, so empty labels are checked once more on the result.
	if msg := checkEmptyLabels(out); msg != "" {
		return fail("%s", msg)
	}
	reverse := strings.HasSuffix(out, ".in-addr.arpa")
	if out != "" {
		for label := range strings.SplitSeq(out, ".") {
			if msg := checkLabel(label, reverse); msg != "" {
				return fail("%s", msg)
			}
		}
	}
	if wildcard {
		if out == "" {
			out = "*"
		} else {
			out = "*." + out
		}
	}
	if len(out) > maxName {
		return fail("the name is %d octets long, more than %d; shorten it", len(out), maxName)
	}
	return out + ".", nil
}

// checkLabel says what is wrong with label, one label of a name in its
// ASCII form, or "" when nothing is. Only a name below in-addr.arpa
// (reverse) may hold an RFC 2317 classless label.
func checkLabel(label string, reverse bool) string {
	if strings.Contains(label, "/") {
		if !reverse {
			return fmt.Sprintf("label %q holds \"/\", which only an RFC 2317 classless reverse name below in-addr.arpa may (\"0/26.2.0.192.in-addr.arpa.\"); use only letters, digits, \"-\" and \"_\"", label)
		}
		if _, _, err := Classless(label); err != nil {
			return err.Error()
		}
		return ""
	}
	if len(label) > maxLabel {
		return fmt.Sprintf("label %q is %d octets long, more than %d; shorten it", label, len(label), maxLabel)
	}
	if msg := checkScripts(label); msg != "" {
		return msg
	}
	for i := 0; i < len(label); i++ {
		if !validByte(label[i]) {
			if label[i] == '*' {
				return "\"*\" is allowed only as the whole leftmost label (a wildcard such as \"*.apps\")"
			}
			return fmt.Sprintf("label %q holds %q; use only letters, digits, \"-\" and \"_\"", label, rune(label[i]))
		}
	}
	return ""
}

// checkEmptyLabels reports an empty label in s (a name without its trailing
// dot), or "" when there is none.
func checkEmptyLabels(s string) string {
	switch {
	case s == "":
		return ""
	case strings.HasPrefix(s, "."):
		return "the name starts with a dot (an empty label); remove it"
	case strings.Contains(s, ".."):
		return "two dots in a row (an empty label); remove one"
	case strings.HasSuffix(s, "."):
		// Only reachable after IDNA mapping turned a trailing rune into a dot.
		return "the name ends in an empty label; remove the extra dot"
	}
	return ""
}

// toASCII lower-cases plain ASCII names directly, which is what IDNA
// mapping would do to them, and hands everything else (non-ASCII runes and
// xn-- labels, which must be checked to decode) to the IDNA profile.
func toASCII(s string) (string, error) {
	plain := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			plain = false
			break
		}
	}
	lower := strings.ToLower(s)
	if plain && !strings.Contains(lower, "xn--") {
		return lower, nil
	}
	return profile.ToASCII(s)
}

// Classless parses an RFC 2317 classless block label, "BASE/LEN" (§4:
// "0/26" for the 64 addresses from .0): LEN is 25 to 32 and BASE a
// multiple of 2^(32-LEN) below 256, both without leading zeros. It
// returns the block's first address octet and its size.
func Classless(label string) (base, size int, err error) {
	b, l, ok := strings.Cut(label, "/")
	bad := func(why string) (int, int, error) {
		return 0, 0, fmt.Errorf("label %q is not an RFC 2317 classless block: %s; write the block's first address octet and its prefix length, like \"0/26\" or \"64/26\"", label, why)
	}
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && s != "" && (s == "0" || s[0] != '0') && s[0] != '+' && s[0] != '-'
	}
	base, okB := num(b)
	n, okL := num(l)
	switch {
	case !ok || !okB || !okL:
		return bad("it must be two numbers without leading zeros around one \"/\"")
	case n < 25 || n > 32:
		return bad(fmt.Sprintf("the prefix length %d is outside 25 to 32", n))
	}
	size = 1 << (32 - n)
	if base > 255 || base%size != 0 {
		msg := fmt.Sprintf("%d is not the first address of a /%d block (a multiple of %d below 256)", base, n, size)
		if base > 255 {
			return bad(msg)
		}
		// The addresses meant may be a block of their own that no
		// prefix spells: site reads the FIRST-LAST label as the block
		// it names (compiler/blocks.go).
		_, _, err := bad(msg)
		return 0, 0, fmt.Errorf("%w, or name the addresses from %d first to last, as RFC 2317 allows too: %q", err, base, fmt.Sprintf("%d-%d", base, min(base+size-1, 255)))
	}
	return base, size, nil
}

func validByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// IsSubdomain reports whether the canonical name is zone or lies below it.
func IsSubdomain(name, zone string) bool {
	if zone == "." {
		return strings.HasSuffix(name, ".")
	}
	return name == zone || strings.HasSuffix(name, "."+zone)
}

// Relative returns the canonical name relative to the canonical zone, the
// way a user writes it inside that zone: "@" for the apex, else the labels
// left of the zone without a trailing dot. A name outside the zone is
// returned unchanged (absolute), which is also a valid way to write it;
// so is a name whose relative form would itself end in the zone's name
// (example.com.example.com. in example.com), which site vet refuses
// written relative, as it is almost always a mistake.
func Relative(name, zone string) string {
	switch {
	case name == zone:
		return "@"
	case zone == "." && strings.HasSuffix(name, "."):
		return strings.TrimSuffix(name, ".")
	case strings.HasSuffix(name, "."+zone):
		rel := strings.TrimSuffix(name, "."+zone)
		if IsSubdomain(rel+".", zone) {
			return name
		}
		return rel
	}
	return name
}

// MeantAbsolute reports whether name, written relative to the canonical
// zone, already ends in the zone's name, so it was almost certainly meant
// absolute ("www.example.com" in zone example.com would read as
// www.example.com.example.com.), and returns the absolute name it reads
// as that way. "@", absolute names and names in the root zone never are.
func MeantAbsolute(name, zone string) (string, bool) {
	if name == "@" || strings.HasSuffix(name, ".") || zone == "." {
		return "", false
	}
	abs, err := Canonical(name+".", ".")
	if err != nil || !IsSubdomain(abs, zone) {
		return "", false
	}
	return abs, true
}

// IsWildcard reports whether the canonical name is a wildcard ("*" as its
// leftmost label).
func IsWildcard(name string) bool {
	return name == "*." || strings.HasPrefix(name, "*.")
}

package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// attributeLines shows what a change compares: the new values of a
// create or adopt, the old values of a delete, and for an update only the
// attributes that differ, as before → after. Values site learns during
// apply (a DHCP lease's address: After holds "lease", where they come
// from, instead of "values") read as what they will be, in parentheses.
func attributeLines(c Change) []string {
	after := c.After
	if lease, ok := c.After["lease"]; ok && c.After["values"] == nil {
		after = maps.Clone(c.After)
		delete(after, "lease")
		after["values"] = pending(fmt.Sprintf("(address from the DHCP lease %v)", lease))
	}
	keys := map[string]bool{}
	for k := range c.Before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	type line struct{ k, v string }
	var lines []line
	width := 0
	for _, k := range names {
		before, hadBefore := c.Before[k]
		after, hasAfter := after[k]
		var v string
		switch {
		case c.Action == ActionDelete || !hasAfter:
			if c.Action != ActionDelete {
				v = render(before) + " → (none)"
			} else {
				v = render(before)
			}
		case c.Action == ActionUpdate && hadBefore:
			rb, ra := render(before), render(after)
			if rb == ra {
				continue
			}
			v = rb + " → " + ra
		case c.Action == ActionUpdate:
			v = "(none) → " + render(after)
		default:
			v = render(after)
		}
		lines = append(lines, line{k, v})
		width = max(width, len(k))
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%-*s %s", width+1, l.k+":", l.v)
	}
	return out
}

// pending is a value not known until apply, shown as its words say.
type pending string

// render writes an attribute value as compact JSON, which reads well for
// strings, numbers and lists. The value goes through plain JSON values
// first, so a struct prints with sorted keys, exactly as it will when the
// plan is read back from a file.
func render(v any) string {
	if s, ok := renderPlain(v); ok {
		return s
	}
	encode := func(v any) (string, error) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n"), err
	}
	s, err := encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var plain any
	if json.Unmarshal([]byte(s), &plain) != nil {
		return escapeFormat(s)
	}
	if s, err = encode(plain); err != nil {
		return fmt.Sprint(v)
	}
	return escapeFormat(s)
}

// escapeFormat writes the Unicode format characters JSON leaves as they
// are (a right-to-left override, a zero-width joiner) as JSON escapes,
// so the text stays the same JSON. Live record data is whoever wrote
// it's, and an override would reorder how the rest of the line reads.
func escapeFormat(s string) string { return escapeRunes(s, isFormat) }

// escapeRunes writes each rune of JSON text s that hide holds as a JSON
// \u escape.
func escapeRunes(s string, hide func(rune) bool) string {
	if !strings.ContainsFunc(s, hide) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !hide(r):
			b.WriteRune(r)
		case r > 0xffff: // JSON writes it as a surrogate pair
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }

// renderPlain renders what most changes carry (a TTL, a string, a list
// of strings) as render would, without its three passes through
// encoding/json: a plan creating 10,000 records spent half of its text
// there. ok is false for any other value, and for a string that JSON
// would escape (TestRenderPlainIsRender).
func renderPlain(v any) (string, bool) {
	switch v := v.(type) {
	case pending:
		return string(v), true
	case string:
		if plainString(v) {
			return `"` + v + `"`, true
		}
	case []string:
		if v == nil {
			return "null", true
		}
		var b strings.Builder
		b.WriteByte('[')
		for i, s := range v {
			if !plainString(s) {
				return "", false
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(s)
			b.WriteByte('"')
		}
		b.WriteByte(']')
		return b.String(), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// plainString reports whether JSON writes s as it is between quotes:
// printable ASCII without a quote or a backslash.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

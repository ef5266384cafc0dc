package rdata

import (
	"fmt"
	"strings"
)

// maxString is the longest DNS character-string (RFC 1035 §3.3): one
// length octet.
const maxString = 255

// TXT returns s in presentation form: quoted, split into character-strings
// of at most 255 octets separated by a space ("..." "..."), `"` and `\`
// escaped with a backslash and every byte outside printable ASCII written
// as \DDD. This is the form PowerDNS returns, so a TXT written by site reads
// back byte for byte. The empty string is `""`.
func TXT(s string) string {
	if len(s) <= maxString {
		return quote(s)
	}
	var b strings.Builder
	for len(s) > 0 {
		n := min(len(s), maxString)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quote(s[:n]))
		s = s[n:]
	}
	return b.String()
}

// TXTStrings returns one TXT record made of the character-strings parts,
// in order and each kept whole: `"part one" "part two"`. It is the form of
// a TXT a spec writes as a list of strings, for data whose string
// boundaries matter (TXT(s) decides them itself, at 255 octets). A part
// longer than 255 octets cannot be one character-string and is an error.
func TXTStrings(parts []string) (string, error) {
	if len(parts) == 0 {
		return "", fmt.Errorf("a TXT record as a list of strings needs at least one string; write [\"text\"] or just \"text\"")
	}
	for i, p := range parts {
		if len(p) > maxString {
			return "", fmt.Errorf("string %d of the TXT record is %d octets; one character-string holds at most %d (write the text as one string and site splits it)", i+1, len(p), maxString)
		}
	}
	return joinTXT(parts), nil
}

// joinTXT writes parts as one record, a part too long for one
// character-string split the way TXT splits it.
func joinTXT(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(TXT(p))
	}
	return b.String()
}

// ParseTXT reads one or more character-strings, quoted or not, undoes
// their escapes and joins them: the text a resolver hands to SPF and DKIM
// readers. It is the inverse of TXT; ParseTXTStrings keeps the strings
// apart.
func ParseTXT(s string) (string, error) {
	parts, err := ParseTXTStrings(s)
	if err != nil {
		return "", err
	}
	return strings.Join(parts, ""), nil
}

// ParseTXTStrings reads one TXT record's character-strings, quoted or
// not, with their escapes undone and their boundaries kept: `"ab" "cd"`
// is ["ab", "cd"], which DNS serves differently from `"abcd"`.
func ParseTXTStrings(s string) ([]string, error) {
	parts, err := characterStrings(s)
	if err != nil {
		return nil, fmt.Errorf("TXT value %q: %w", s, err)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("TXT value %q holds no string; write it quoted, like \"v=spf1 -all\"", s)
	}
	return parts, nil
}

// Words splits a value in presentation form, as a zone file writes it,
// into its words: unquoted ones end at white space, quoted ones at their
// closing quote, and escapes are undone ("0 issue \"ca.example\"" is 0,
// issue and ca.example).
func Words(s string) ([]string, error) { return characterStrings(s) }

// quote writes one quoted character-string, escaped the way PowerDNS's
// txtEscape does.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// characterStrings splits presentation-form data into its character-strings
// and undoes escapes: \DDD is the octet with that decimal value, \X is X.
func characterStrings(s string) ([]string, error) {
	var out []string
	for i := 0; ; {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		quoted := s[i] == '"'
		if quoted {
			i++
		}
		var b []byte
		for {
			if i == len(s) {
				if quoted {
					return nil, fmt.Errorf("a quoted string is not closed; add the closing \"")
				}
				break
			}
			c := s[i]
			if quoted && c == '"' {
				i++
				if i < len(s) && s[i] != ' ' && s[i] != '\t' {
					return nil, fmt.Errorf("text follows a closing quote at offset %d; separate strings by a space", i)
				}
				break
			}
			if !quoted && (c == ' ' || c == '\t') {
				break
			}
			if !quoted && c == '"' {
				return nil, fmt.Errorf("a quote inside an unquoted string at offset %d; quote the whole string", i)
			}
			if c != '\\' {
				b = append(b, c)
				i++
				continue
			}
			i++
			if i == len(s) {
				return nil, fmt.Errorf("a backslash ends the text; write \\\\ for a backslash")
			}
			if isDigit(s[i]) {
				if i+3 > len(s) || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
					return nil, fmt.Errorf("escape at offset %d needs three digits, like \\032", i-1)
				}
				v := int(s[i]-'0')*100 + int(s[i+1]-'0')*10 + int(s[i+2]-'0')
				if v > 255 {
					return nil, fmt.Errorf("escape \\%s is not an octet; use \\000 to \\255", s[i:i+3])
				}
				b = append(b, byte(v))
				i += 3
				continue
			}
			b = append(b, s[i])
			i++
		}
		out = append(out, string(b))
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

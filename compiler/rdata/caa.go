package rdata

import (
	"fmt"
	"strconv"
	"strings"
)

// CAA returns `<flags> <tag> "<value>"`, e.g. `0 issue "letsencrypt.org"`.
// flags is 0..255 (128 is "issuer critical"). The tag is letters and digits
// (issue, issuewild, iodef, ...); tags match case-insensitively (RFC 8659
// §4.1), so the canonical form is lower case. The value is quoted and
// escaped like TXT but never split: it is not a character-string.
func CAA(flags int, tag, value string) (string, error) {
	if flags < 0 || flags > 255 {
		return "", fmt.Errorf("CAA flags %d is out of range; use 0 to 255 (128 marks the tag critical)", flags)
	}
	t, err := caaTag(tag)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(flags) + " " + t + " " + quote(value), nil
}

// ParseCAA splits a CAA value in presentation form into its fields; the tag
// comes back lower case.
func ParseCAA(s string) (flags int, tag, value string, err error) {
	parts, err := characterStrings(s)
	if err != nil {
		return 0, "", "", fmt.Errorf("CAA value %q: %w", s, err)
	}
	if len(parts) != 3 {
		return 0, "", "", fmt.Errorf("CAA value %q: want `<flags> <tag> \"<value>\"`", s)
	}
	flags, err = strconv.Atoi(parts[0])
	if err != nil || parts[0][0] == '+' || parts[0][0] == '-' || (len(parts[0]) > 1 && parts[0][0] == '0') || flags > 255 {
		return 0, "", "", fmt.Errorf("CAA value %q: flags %q is not a number from 0 to 255", s, parts[0])
	}
	if tag, err = caaTag(parts[1]); err != nil {
		return 0, "", "", fmt.Errorf("CAA value %q: %w", s, err)
	}
	return flags, tag, parts[2], nil
}

func caaTag(tag string) (string, error) {
	if tag == "" {
		return "", fmt.Errorf("CAA tag is empty; write one such as issue, issuewild or iodef")
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)) {
			return "", fmt.Errorf("CAA tag %q holds %q; use only letters and digits (issue, issuewild, iodef, ...)", tag, rune(c))
		}
	}
	return strings.ToLower(tag), nil
}

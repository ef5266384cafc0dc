package rdata

import (
	"fmt"
	"strconv"
	"strings"
)

// NAPTR returns `<order> <preference> "<flags>" "<service>" "<regexp>"
// <replacement>` (RFC 3403 §4.1). Flags are letters and digits; regexp
// and replacement are mutually exclusive, so with a regexp the
// replacement is "."; the replacement is an absolute name or ".".
func NAPTR(order, preference int, flags, service, regexp, replacement string) (string, error) {
	if err := uint16Field("NAPTR order", order); err != nil {
		return "", err
	}
	if err := uint16Field("NAPTR preference", preference); err != nil {
		return "", err
	}
	for i := 0; i < len(flags); i++ {
		if c := flags[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)) {
			return "", fmt.Errorf("NAPTR flags %q holds %q; use only letters and digits (RFC 3403 §4.1), such as S, A, U or P", flags, rune(c))
		}
	}
	r, err := Target(replacement)
	if err != nil {
		return "", fmt.Errorf("NAPTR replacement: %w", err)
	}
	if regexp != "" && r != "." {
		return "", fmt.Errorf("NAPTR has both a regexp and replacement %s; they are mutually exclusive (RFC 3403 §4.1): set replacement to \".\" or regexp to \"\"", r)
	}
	return strconv.Itoa(order) + " " + strconv.Itoa(preference) + " " + quote(flags) + " " + quote(service) + " " + quote(regexp) + " " + r, nil
}

// ParseNAPTR splits a NAPTR value in presentation form into its fields.
func ParseNAPTR(s string) (order, preference int, flags, service, regexp, replacement string, err error) {
	parts, err := characterStrings(s)
	if err != nil {
		return 0, 0, "", "", "", "", fmt.Errorf("NAPTR value %q: %w", s, err)
	}
	if len(parts) != 6 {
		return 0, 0, "", "", "", "", fmt.Errorf("NAPTR value %q: want `<order> <preference> \"<flags>\" \"<service>\" \"<regexp>\" <replacement>`", s)
	}
	var n [2]int
	for i, name := range []string{"NAPTR order", "NAPTR preference"} {
		if n[i], err = parseUint16(name, parts[i]); err != nil {
			return 0, 0, "", "", "", "", fmt.Errorf("NAPTR value %q: %w", s, err)
		}
	}
	replacement = strings.ToLower(parts[5])
	if _, err := NAPTR(n[0], n[1], parts[2], parts[3], parts[4], replacement); err != nil {
		return 0, 0, "", "", "", "", fmt.Errorf("NAPTR value %q: %w", s, err)
	}
	r, _ := Target(replacement)
	return n[0], n[1], parts[2], parts[3], parts[4], r, nil
}

package rdata

import (
	"fmt"
	"net/url"
	"strconv"
)

// URI returns `<priority> <weight> "<target>"` (RFC 7553 §4.4): the
// target a URI with a scheme, quoted as a character-string is.
func URI(priority, weight int, target string) (string, error) {
	if err := uint16Field("URI priority", priority); err != nil {
		return "", err
	}
	if err := uint16Field("URI weight", weight); err != nil {
		return "", err
	}
	if u, err := url.Parse(target); target == "" || err != nil || u.Scheme == "" {
		return "", fmt.Errorf("URI target %q is not a URI with a scheme (RFC 7553 §4.5); write one like \"https://www.example.net/\"", target)
	}
	return strconv.Itoa(priority) + " " + strconv.Itoa(weight) + " " + quote(target), nil
}

// ParseURI splits a URI value in presentation form into its fields.
func ParseURI(s string) (priority, weight int, target string, err error) {
	parts, err := characterStrings(s)
	if err != nil {
		return 0, 0, "", fmt.Errorf("URI value %q: %w", s, err)
	}
	if len(parts) != 3 {
		return 0, 0, "", fmt.Errorf("URI value %q: want `<priority> <weight> \"<target>\"`", s)
	}
	var n [2]int
	for i, name := range []string{"URI priority", "URI weight"} {
		if n[i], err = parseUint16(name, parts[i]); err != nil {
			return 0, 0, "", fmt.Errorf("URI value %q: %w", s, err)
		}
	}
	if _, err := URI(n[0], n[1], parts[2]); err != nil {
		return 0, 0, "", fmt.Errorf("URI value %q: %w", s, err)
	}
	return n[0], n[1], parts[2], nil
}

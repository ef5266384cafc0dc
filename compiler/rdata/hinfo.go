package rdata

import (
	"fmt"
	"strings"
)

// HINFO returns `"<cpu>" "<os>"` (RFC 1035 §3.3.2), two character-strings
// of at most 255 octets, quoted and escaped as TXT's are.
func HINFO(cpu, os string) (string, error) {
	for _, f := range []struct{ name, v string }{{"cpu", cpu}, {"os", os}} {
		if len(f.v) > 255 {
			return "", fmt.Errorf("HINFO %s is %d octets; a character-string holds at most 255", f.name, len(f.v))
		}
	}
	return quote(cpu) + " " + quote(os), nil
}

// ParseHINFO splits an HINFO value in presentation form into its fields.
func ParseHINFO(s string) (cpu, os string, err error) {
	parts, err := characterStrings(s)
	if err != nil {
		return "", "", fmt.Errorf("HINFO value %q: %w", s, err)
	}
	if len(parts) != 2 {
		return "", "", fmt.Errorf("HINFO value %q: want `\"<cpu>\" \"<os>\"`", s)
	}
	if _, err := HINFO(parts[0], parts[1]); err != nil {
		return "", "", err
	}
	return parts[0], parts[1], nil
}

// RP returns "<mbox> <txt>" (RFC 1183 §2.2): the responsible person's
// mailbox as a name (hostmaster.example.net. for
// hostmaster@example.net) and a name holding TXT records about them,
// each absolute, or "." for none.
func RP(mbox, txt string) (string, error) {
	m, err := Target(mbox)
	if err != nil {
		return "", fmt.Errorf("RP mbox: %w", err)
	}
	t, err := Target(txt)
	if err != nil {
		return "", fmt.Errorf("RP txt: %w", err)
	}
	return m + " " + t, nil
}

// ParseRP splits an RP value in presentation form into its fields.
func ParseRP(s string) (mbox, txt string, err error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return "", "", fmt.Errorf("RP value %q: want `<mbox> <txt>`, two absolute names", s)
	}
	v, err := RP(f[0], f[1])
	if err != nil {
		return "", "", fmt.Errorf("RP value %q: %w", s, err)
	}
	mbox, txt, _ = strings.Cut(v, " ")
	return mbox, txt, nil
}

package rdata

import (
	"fmt"
	"slices"
	"strings"
)

// Types lists the record types of the tenant language, which are the
// types this package understands and site manages, in the order the
// language documents them. Records of other types are never touched.
var Types = []string{"A", "AAAA", "CNAME", "TXT", "MX", "SRV", "CAA", "NS",
	"PTR", "SSHFP", "TLSA", "HTTPS", "SVCB", "NAPTR", "DS", "DNAME", "OPENPGPKEY", "DHCID", "ALIAS",
	"LOC", "URI", "CERT", "SMIMEA", "HINFO", "RP"}

// IsType reports whether typ (upper case) is one of Types.
func IsType(typ string) bool { return slices.Contains(Types, typ) }

// Normalize rewrites one value of record type typ, in any presentation form
// a server may return, into the canonical form this package writes: for
// example "2001:DB8:0::1" becomes "2001:db8::1" and `ab "cd"` becomes
// `"ab" "cd"` (TXT strings keep their boundaries). Backends normalise what they observe before comparing it with
// the model.
func Normalize(typ, value string) (string, error) {
	switch strings.ToUpper(typ) {
	case "A":
		return A(value)
	case "AAAA":
		return AAAA(value)
	case "CNAME", "NS", "PTR", "DNAME", "ALIAS":
		h, err := Host(value)
		if err != nil {
			return "", fmt.Errorf("%s %w", strings.ToUpper(typ), err)
		}
		return h, nil
	case "TXT":
		// The character-strings stay apart: `"ab" "cd"` and `"abcd"` are
		// different records on the wire, and joining them here made an
		// export of the first write the second.
		parts, err := ParseTXTStrings(value)
		if err != nil {
			return "", err
		}
		return joinTXT(parts), nil
	case "MX":
		p, h, err := ParseMX(value)
		if err != nil {
			return "", err
		}
		return MX(p, h)
	case "SRV":
		p, w, port, t, err := ParseSRV(value)
		if err != nil {
			return "", err
		}
		return SRV(p, w, port, t)
	case "CAA":
		f, t, v, err := ParseCAA(value)
		if err != nil {
			return "", err
		}
		return CAA(f, t, v)
	case "OPENPGPKEY", "DHCID":
		return Base64(strings.ToUpper(typ), value)
	case "LOC":
		return LOC(value)
	}
	if t := strings.ToUpper(typ); structFields[t] != nil {
		f, err := ToFields(t, value)
		if err != nil {
			return "", err
		}
		return FromFields(t, f)
	}
	return "", fmt.Errorf("record type %q is not supported; use one of %s", typ, strings.Join(Types, ", "))
}

package rdata

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// CERT returns "<type> <key tag> <algorithm> <certificate>" (RFC 4398
// §2.2), all numbers in decimal, the form PowerDNS takes and returns
// (it refuses the mnemonics "PKIX" or "RSASHA256", which ParseCERT
// reads), and the certificate in canonical base64.
func CERT(typ, keyTag, algorithm int, certificate string) (string, error) {
	if err := uint16Field("CERT type", typ); err != nil {
		return "", err
	}
	if err := uint16Field("CERT key_tag", keyTag); err != nil {
		return "", err
	}
	if err := byteField("CERT algorithm", algorithm, 0, 255); err != nil {
		return "", err
	}
	c, err := Base64("CERT certificate", certificate)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d %d %s", typ, keyTag, algorithm, c), nil
}

// ParseCERT splits a CERT value in presentation form into its fields;
// the type and algorithm may be mnemonics (PKIX, RSASHA256, ...), as
// zone files write them.
func ParseCERT(s string) (typ, keyTag, algorithm int, certificate string, err error) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return 0, 0, 0, "", fmt.Errorf("CERT value %q: want `<type> <key tag> <algorithm> <certificate>`", s)
	}
	typ, err = strconv.Atoi(f[0])
	if t, ok := dns.StringToCertType[strings.ToUpper(f[0])]; err != nil && ok {
		typ, err = int(t), nil
	}
	if err != nil {
		return 0, 0, 0, "", fmt.Errorf("CERT value %q: type %q is neither a number nor a type RFC 4398 names (PKIX, SPKI, PGP, IPKIX, ISPKI, IPGP, ACPKIX, IACPKIX, URI, OID)", s, f[0])
	}
	if keyTag, err = parseUint16("CERT key tag", f[1]); err != nil {
		return 0, 0, 0, "", fmt.Errorf("CERT value %q: %w", s, err)
	}
	algorithm, err = strconv.Atoi(f[2])
	if a, ok := dns.StringToAlgorithm[strings.ToUpper(f[2])]; err != nil && ok {
		algorithm, err = int(a), nil
	}
	if err != nil {
		return 0, 0, 0, "", fmt.Errorf("CERT value %q: algorithm %q is neither a number nor a DNSSEC algorithm's name", s, f[2])
	}
	v, err := CERT(typ, keyTag, algorithm, strings.Join(f[3:], ""))
	if err != nil {
		return 0, 0, 0, "", fmt.Errorf("CERT value %q: %w", s, err)
	}
	return typ, keyTag, algorithm, v[strings.LastIndexByte(v, ' ')+1:], nil
}

// SMIMEA returns "<usage> <selector> <matching type> <data>" (RFC 8162
// §2), checked and written as TLSA's are (RFC 6698 §2.1).
func SMIMEA(usage, selector, matching int, certificate string) (string, error) {
	return tlsaLike("SMIMEA", usage, selector, matching, certificate)
}

// ParseSMIMEA splits an SMIMEA value in presentation form into its fields.
func ParseSMIMEA(s string) (usage, selector, matching int, certificate string, err error) {
	n, rest, err := numbersThenHex("SMIMEA", s, "usage", "selector", "matching_type")
	if err != nil {
		return 0, 0, 0, "", err
	}
	return n[0], n[1], n[2], rest, nil
}

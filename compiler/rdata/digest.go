package rdata

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// SSHFP returns "<algorithm> <type> <fingerprint>" with the fingerprint
// in lower-case hex, the form PowerDNS returns. RFC 4255 §3.1 and the
// IANA registry: fingerprint type 1 is SHA-1 (20 octets), 2 is SHA-256
// (32 octets); algorithm and type 0 are reserved.
func SSHFP(algorithm, typ int, fingerprint string) (string, error) {
	if err := byteField("SSHFP algorithm", algorithm, 1, 255); err != nil {
		return "", err
	}
	if err := byteField("SSHFP type", typ, 1, 255); err != nil {
		return "", err
	}
	fp, err := hexField("SSHFP fingerprint", fingerprint, map[int]int{1: 20, 2: 32}[typ], "type "+strconv.Itoa(typ))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d %s", algorithm, typ, fp), nil
}

// ParseSSHFP splits an SSHFP value in presentation form into its fields.
func ParseSSHFP(s string) (algorithm, typ int, fingerprint string, err error) {
	n, rest, err := numbersThenHex("SSHFP", s, "algorithm", "type")
	if err != nil {
		return 0, 0, "", err
	}
	return n[0], n[1], rest, nil
}

// TLSA returns "<usage> <selector> <matching type> <data>", data in
// lower-case hex. RFC 6698 §2.1: usage 0-3, selector 0-1, matching type
// 0-2, where 1 is SHA-256 (32 octets) and 2 SHA-512 (64 octets).
func TLSA(usage, selector, matching int, certificate string) (string, error) {
	return tlsaLike("TLSA", usage, selector, matching, certificate)
}

// tlsaLike is TLSA, or SMIMEA (typ), which has TLSA's fields.
func tlsaLike(typ string, usage, selector, matching int, certificate string) (string, error) {
	if err := byteField(typ+" usage", usage, 0, 3); err != nil {
		return "", err
	}
	if err := byteField(typ+" selector", selector, 0, 1); err != nil {
		return "", err
	}
	if err := byteField(typ+" matching_type", matching, 0, 2); err != nil {
		return "", err
	}
	c, err := hexField(typ+" certificate", certificate, map[int]int{1: 32, 2: 64}[matching], "matching_type "+strconv.Itoa(matching))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d %d %s", usage, selector, matching, c), nil
}

// ParseTLSA splits a TLSA value in presentation form into its fields.
func ParseTLSA(s string) (usage, selector, matching int, certificate string, err error) {
	n, rest, err := numbersThenHex("TLSA", s, "usage", "selector", "matching_type")
	if err != nil {
		return 0, 0, 0, "", err
	}
	return n[0], n[1], n[2], rest, nil
}

// dsDigestLen is the digest length of each DS digest type: SHA-1 (RFC
// 3658), SHA-256 (RFC 4509), GOST R 34.11-94 (RFC 5933), SHA-384 (RFC
// 6605). Other types are checked for hex only.
var dsDigestLen = map[int]int{1: 20, 2: 32, 3: 32, 4: 48}

// DS returns "<key tag> <algorithm> <digest type> <digest>", the digest
// in lower-case hex (RFC 4034 §5.3).
func DS(keyTag, algorithm, digestType int, digest string) (string, error) {
	if err := uint16Field("DS key_tag", keyTag); err != nil {
		return "", err
	}
	if err := byteField("DS algorithm", algorithm, 1, 255); err != nil {
		return "", err
	}
	if err := byteField("DS digest_type", digestType, 1, 255); err != nil {
		return "", err
	}
	d, err := hexField("DS digest", digest, dsDigestLen[digestType], "digest_type "+strconv.Itoa(digestType))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d %d %s", keyTag, algorithm, digestType, d), nil
}

// ParseDS splits a DS value in presentation form into its fields.
func ParseDS(s string) (keyTag, algorithm, digestType int, digest string, err error) {
	n, rest, err := numbersThenHex("DS", s, "key_tag", "algorithm", "digest_type")
	if err != nil {
		return 0, 0, 0, "", err
	}
	return n[0], n[1], n[2], rest, nil
}

// Base64 returns the canonical base64 (RFC 4648 §4, padded, no spaces)
// of an OPENPGPKEY (RFC 7929) or DHCID (RFC 4701) value; white space a
// pasted key carries is dropped.
func Base64(typ, s string) (string, error) {
	s = strings.Join(strings.Fields(s), "")
	if s == "" {
		return "", fmt.Errorf("%s value is empty; write the data in base64", typ)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("%s value is not valid base64 (%v); write it as RFC 4648 base64 with padding", typ, err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// byteField checks an integer field against its range.
func byteField(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d is out of range; use %d to %d", name, v, lo, hi)
	}
	return nil
}

// hexField checks and lower-cases hex data; want is its length in octets
// for the kind named by what, 0 when any length will do.
func hexField(name, s string, want int, what string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%s is empty; write it in hex", name)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("%s %q is not hex (two digits 0-9a-f per octet)", name, s)
	}
	if want > 0 && len(b) != want {
		return "", fmt.Errorf("%s is %d octets, but %s takes %d (%d hex digits)", name, len(b), what, want, 2*want)
	}
	return hex.EncodeToString(b), nil
}

// numbersThenHex reads decimal fields, one per name, and then hex data,
// which presentation form may split by spaces (RFC 4034 §5.3).
func numbersThenHex(typ, s string, names ...string) ([]int, string, error) {
	n := len(names)
	f := strings.Fields(s)
	if len(f) < n+1 {
		return nil, "", fmt.Errorf("%s value %q: want %d numbers and hex data", typ, s, n)
	}
	out := make([]int, n)
	for i := range n {
		v, err := parseUint16(typ+" "+names[i], f[i])
		if err != nil {
			return nil, "", fmt.Errorf("%s value %q: %w", typ, s, err)
		}
		out[i] = v
	}
	return out, strings.ToLower(strings.Join(f[n:], "")), nil
}

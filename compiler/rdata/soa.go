package rdata

import (
	"fmt"
	"strconv"
	"strings"
)

// SOA is the data of a zone's SOA record (RFC 1035 §3.3.13).
type SOA struct {
	MName, RName                            string // absolute names
	Serial, Refresh, Retry, Expire, Minimum uint32
}

// ParseSOA reads an SOA value in presentation form, names lower-cased.
func ParseSOA(s string) (SOA, error) {
	f := strings.Fields(s)
	if len(f) != 7 {
		return SOA{}, fmt.Errorf("SOA value %q: want \"<mname> <rname> <serial> <refresh> <retry> <expire> <minimum>\"", s)
	}
	var n [5]uint32
	for i := range n {
		v, err := strconv.ParseUint(f[i+2], 10, 32)
		if err != nil {
			return SOA{}, fmt.Errorf("SOA value %q: field %d %q is not a 32-bit number", s, i+3, f[i+2])
		}
		n[i] = uint32(v)
	}
	return SOA{strings.ToLower(f[0]), strings.ToLower(f[1]), n[0], n[1], n[2], n[3], n[4]}, nil
}

// String is the SOA in presentation form, the form PowerDNS returns.
func (s SOA) String() string {
	return fmt.Sprintf("%s %s %d %d %d %d %d", s.MName, s.RName, s.Serial, s.Refresh, s.Retry, s.Expire, s.Minimum)
}

// Mbox returns the SOA RNAME of a responsible person's mailbox, written
// either as an address ("hostmaster@example.net", whose local part's
// dots are escaped, RFC 1035 §8) or as an absolute name
// ("hostmaster.example.net.").
func Mbox(s string) (string, error) {
	local, domain, isAddr := strings.Cut(s, "@")
	if !isAddr {
		n, err := absolute(s)
		if err != nil {
			return "", fmt.Errorf("soa mbox: %w, or an address like hostmaster@example.net", err)
		}
		return n, nil
	}
	if local == "" || strings.IndexFunc(local, notMailboxChar) >= 0 {
		return "", fmt.Errorf("soa mbox %q: the part before @ must be a plain mailbox name: printable ASCII, no space, '\\', '\"' or '@'", s)
	}
	d, err := absolute(strings.TrimSuffix(domain, ".") + ".")
	if err != nil {
		return "", fmt.Errorf("soa mbox %q: %w", s, err)
	}
	return strings.ReplaceAll(strings.ToLower(local), ".", `\.`) + "." + d, nil
}

// notMailboxChar reports a byte the local part of an SOA mailbox may
// not hold: one that is not printable ASCII (it reaches the plan and
// the terminal as it is), a space, or one that would end or escape the
// label in presentation form.
func notMailboxChar(r rune) bool {
	return r <= ' ' || r >= 0x7f || strings.ContainsRune("\\\"@", r)
}

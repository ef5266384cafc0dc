package rdata

import (
	"fmt"
	"strings"
)

// DNS carries a record's data behind a 16-bit length (RFC 1035 §3.2.1),
// and a message over TCP behind a 16-bit length too (§4.2.2): a record
// of more than 65535 octets cannot exist, and an RRset whose records do
// not fit in one 65535-octet message cannot be served whole. PowerDNS
// stores either and then fails to answer (or truncates), so vet refuses
// them instead.
const (
	MaxRdata   = 65535
	MaxMessage = 65535
)

// RdataLen is the length in octets of value's wire form, value being the
// canonical presentation form of a record of type typ. Names count
// uncompressed.
func RdataLen(typ, value string) (int, error) {
	switch typ {
	case "A":
		return 4, nil
	case "AAAA":
		return 16, nil
	case "CNAME", "NS":
		return nameLen(value), nil
	case "MX":
		_, host, err := ParseMX(value)
		return 2 + nameLen(host), err
	case "SRV":
		_, _, _, target, err := ParseSRV(value)
		return 6 + nameLen(target), err
	case "CAA":
		_, tag, v, err := ParseCAA(value)
		return 2 + len(tag) + len(v), err
	case "TXT":
		parts, err := characterStrings(value)
		n := 0
		for _, p := range parts {
			n += 1 + len(p)
		}
		return n, err
	}
	return 0, fmt.Errorf("record type %s: no wire length known", typ)
}

// MessageLen is the least size of a DNS response that holds the whole
// RRset name/typ with values (canonical presentation form): header,
// question, and each record with its owner name compressed to a
// pointer, as are the names in CNAME, NS and MX data (SRV's target is
// never compressed, RFC 2782). An RRset for which it passes MaxMessage
// cannot be answered.
func MessageLen(name, typ string, values []string) (int, error) {
	n := 12 + nameLen(name) + 4
	for _, v := range values {
		rd, err := RdataLen(typ, v)
		if err != nil {
			return 0, err
		}
		switch typ {
		case "CNAME", "NS":
			rd = min(rd, 2)
		case "MX":
			rd = min(rd, 4)
		}
		n += 2 + 10 + rd // owner pointer, type, class, TTL, rdlength, rdata
	}
	return n, nil
}

// nameLen is the wire length of a name in canonical form (no escapes):
// one length octet per label and the root's zero octet.
func nameLen(name string) int {
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return 1
	}
	return len(name) + 2
}

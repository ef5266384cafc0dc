package powerdns

import (
	"slices"
	"strings"

	"github.com/miekg/dns"
)

// servedZone is what a zone transfer showed, by name and type.
type servedZone map[rrKey]*served

// add files one message's records of a transfer.
func (out servedZone) add(rrs []dns.RR) {
	for _, rr := range rrs {
		h := rr.Header()
		switch h.Rrtype {
		case dns.TypeRRSIG, dns.TypeNSEC, dns.TypeNSEC3:
			// Signatures and denial records move with every change;
			// site never writes them, so no expectation asks for them.
			continue
		}
		k := rrKey{strings.ToLower(h.Name), dns.TypeToString[h.Rrtype]}
		s := out[k]
		if s == nil {
			one := &servedOne{served: served{ttl: h.Ttl}}
			one.values = one.first[:0]
			s = &one.served
			out[k] = s
		}
		s.values = append(s.values, rdata(rr))
	}
}

// finish sorts every rrset's values once the transfer is complete.
func (out servedZone) finish() {
	for k, s := range out {
		if k.typ == "SOA" {
			// The SOA opens and closes an AXFR.
			s.values = s.values[:1]
		}
		if len(s.values) > 1 {
			slices.Sort(s.values)
		}
	}
}

// answer is what a query for name/type would answer, read from the
// transfer: nothing for a name a delegation or a DNAME hides (the
// server answers those with a referral or a rewrite, incident 2), save
// the NS and DS records at the cut itself and the addresses of the name
// servers the cut's NS name below it (glue, served in the referral).
func (out servedZone) answer(zone, name, typ string) *served {
	name = strings.ToLower(name)
	apex := strings.ToLower(zone)
	for cut := name; cut != apex && below(apex, cut); {
		if cut == name {
			if typ != "NS" && typ != "DS" && out[rrKey{cut, "NS"}] != nil {
				return nil
			}
		} else if ns := out[rrKey{cut, "NS"}]; ns != nil {
			if (typ == "A" || typ == "AAAA") && slices.Contains(ns.values, name) {
				return out[rrKey{name, typ}]
			}
			return nil
		} else if out[rrKey{cut, "DNAME"}] != nil {
			return nil
		}
		i, end := dns.NextLabel(cut, 0)
		if end {
			break
		}
		cut = cut[i:]
	}
	return out[rrKey{name, typ}]
}

// below is dns.IsSubDomain(apex, name) for lower-case names, without
// its allocations (it splits both names; answer asks once per label of
// every expected name): name ends in a label boundary followed by apex.
func below(apex, name string) bool {
	if apex == "." {
		return true
	}
	if !strings.HasSuffix(name, apex) {
		return false
	}
	i := len(name) - len(apex)
	if i == 0 {
		return true
	}
	if name[i-1] != '.' {
		return false
	}
	// The dot ends a label unless a backslash escapes it (an odd run).
	escapes := 0
	for j := i - 2; j >= 0 && name[j] == '\\'; j-- {
		escapes++
	}
	return escapes%2 == 0
}

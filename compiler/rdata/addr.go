package rdata

import (
	"fmt"
	"net/netip"
)

// A returns the canonical dotted form of an IPv4 address.
func A(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("A record %q is not an IPv4 address; write it dotted, like 192.0.2.1", s)
	case a.Is6():
		return "", fmt.Errorf("A record %q is an IPv6 address; put it under AAAA", s)
	}
	return a.String(), nil
}

// AAAA returns the RFC 5952 form of an IPv6 address (lower case, longest
// run of zero groups as "::"). IPv4 and IPv4-mapped addresses belong in A
// records and are refused; so are zones ("%eth0").
func AAAA(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("AAAA record %q is not an IPv6 address; write it like 2001:db8::1", s)
	case a.Is4():
		return "", fmt.Errorf("AAAA record %q is an IPv4 address; put it under A", s)
	case a.Is4In6():
		return "", fmt.Errorf("AAAA record %q is an IPv4-mapped address; put %s under A", s, a.Unmap())
	case a.Zone() != "":
		return "", fmt.Errorf("AAAA record %q has a zone (%%%s), which DNS cannot carry; remove it", s, a.Zone())
	}
	return a.String(), nil
}

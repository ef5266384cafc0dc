package rdata

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/miekg/dns"
)

// SVCB returns "<priority> <target> <params>" for an SVCB or HTTPS
// record (RFC 9460), params in PowerDNS's form: keys in ascending key
// order (§2.2 wants them so on the wire, and PowerDNS refuses other
// orders), mandatory's list sorted, values unquoted except ech and
// keyNNNNN. Params are parsed by miekg/dns, so every key RFC 9460 §14.3.2
// registers is checked for its syntax. Priority 0 is AliasMode, which
// carries no params (§2.4.2). A control character in params is an
// error, not a separator: miekg/dns reads params as one zone-file line,
// so a newline would end them there and silently drop what follows.
func SVCB(typ string, priority int, target, params string) (string, error) {
	if err := uint16Field(typ+" priority", priority); err != nil {
		return "", err
	}
	t, err := Target(target)
	if err != nil {
		return "", fmt.Errorf("%s target: %w", typ, err)
	}
	if i := strings.IndexFunc(params, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(params[i:])
		return "", fmt.Errorf("%s params %q hold the control character %s (%U); params are key=value pairs separated by spaces, such as alpn=h2,h3 port=443", typ, params, strconv.QuoteRune(r), r)
	}
	params = strings.TrimSpace(params)
	if priority == 0 && params != "" {
		return "", fmt.Errorf("%s priority 0 is AliasMode, which takes no params (RFC 9460 §2.4.2); remove params or use priority 1 or more", typ)
	}
	rr, err := dns.NewRR(". 0 IN SVCB 1 . " + params)
	if err != nil {
		return "", fmt.Errorf("%s params %q are not valid SvcParams (%s); write key=value pairs, such as alpn=h2,h3 port=443 (RFC 9460 §2.1)", typ, params, svcbErr(err))
	}
	kv := rr.(*dns.SVCB).Value
	slices.SortFunc(kv, func(a, b dns.SVCBKeyValue) int { return int(a.Key()) - int(b.Key()) })
	var b strings.Builder
	b.WriteString(strconv.Itoa(priority) + " " + t)
	for i, p := range kv {
		if i > 0 && kv[i-1].Key() == p.Key() {
			return "", fmt.Errorf("%s params %q: key %s is given twice; give it once", typ, params, p.Key())
		}
		v, err := svcParam(p)
		if err != nil {
			return "", fmt.Errorf("%s params %q: %w", typ, params, err)
		}
		b.WriteString(" " + v)
	}
	if err := mandatoryPresent(kv); err != nil {
		return "", fmt.Errorf("%s params %q: %w", typ, params, err)
	}
	return b.String(), nil
}

// ParseSVCB splits an SVCB or HTTPS value in presentation form into
// priority, target and params.
func ParseSVCB(typ, s string) (priority int, target, params string, err error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0, "", "", fmt.Errorf("%s value %q: want \"<priority> <target> [params]\"", typ, s)
	}
	if priority, err = parseUint16(typ+" priority", f[0]); err != nil {
		return 0, "", "", fmt.Errorf("%s value %q: %w", typ, s, err)
	}
	if target, err = Target(f[1]); err != nil {
		return 0, "", "", fmt.Errorf("%s value %q: %w", typ, s, err)
	}
	c, err := SVCB(typ, priority, target, strings.Join(f[2:], " "))
	if err != nil {
		return 0, "", "", err
	}
	_, params, _ = strings.Cut(strings.TrimPrefix(c, f[0]+" "+target), " ")
	return priority, target, params, nil
}

// svcParam prints one param the way PowerDNS 4.7 does.
func svcParam(p dns.SVCBKeyValue) (string, error) {
	switch v := p.(type) {
	case *dns.SVCBNoDefaultAlpn:
		return "no-default-alpn", nil
	case *dns.SVCBMandatory:
		keys := slices.Clone(v.Code)
		slices.Sort(keys)
		names := make([]string, len(keys))
		for i, k := range keys {
			if k == dns.SVCB_MANDATORY {
				return "", fmt.Errorf("mandatory lists itself; list other keys only (RFC 9460 §8)")
			}
			names[i] = k.String()
		}
		return "mandatory=" + strings.Join(names, ","), nil
	case *dns.SVCBAlpn, *dns.SVCBPort, *dns.SVCBIPv4Hint, *dns.SVCBIPv6Hint:
		return p.Key().String() + "=" + p.String(), nil
	case *dns.SVCBECHConfig:
		return "ech=\"" + p.String() + "\"", nil
	case *dns.SVCBLocal:
		return p.Key().String() + "=\"" + p.String() + "\"", nil
	}
	return "", fmt.Errorf("key %s is not supported yet; use mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint or keyNNNNN", p.Key())
}

// mandatoryPresent checks that every key mandatory lists is there (RFC
// 9460 §8).
func mandatoryPresent(kv []dns.SVCBKeyValue) error {
	for _, p := range kv {
		m, ok := p.(*dns.SVCBMandatory)
		if !ok {
			continue
		}
		for _, k := range m.Code {
			if !slices.ContainsFunc(kv, func(p dns.SVCBKeyValue) bool { return p.Key() == k }) {
				return fmt.Errorf("mandatory lists %s, which is not given; add it or take it off the list", k)
			}
		}
	}
	return nil
}

// svcbErr keeps miekg/dns's reason and drops its position in the
// made-up zone line, which would only confuse.
func svcbErr(err error) string {
	s := strings.TrimPrefix(err.Error(), "dns: ")
	if i := strings.Index(s, " at line:"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimPrefix(strings.TrimSpace(s), ": ")
}

package powerdns

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/miekg/dns"
)

// splitAliases takes the ALIAS expectations out of expect. An ALIAS is
// not a DNS type: the server answers A and AAAA queries at its name with
// the target's addresses (expand-alias), so it is checked by asking for
// those, never by a zone transfer or an ALIAS query.
func splitAliases(expect []expectation) (rest, aliases []expectation) {
	if !slices.ContainsFunc(expect, func(e expectation) bool { return e.typ == "ALIAS" }) {
		return expect, nil // most zones: no copy of every expectation
	}
	rest = make([]expectation, 0, len(expect))
	for _, e := range expect {
		if e.typ == "ALIAS" {
			aliases = append(aliases, e)
		} else {
			rest = append(rest, e)
		}
	}
	return rest, aliases
}

// verifyAlias asks addr for the addresses at e's name and at its target.
// Written, the name must answer addresses, the target's own when this
// server answers for the target too. A deleted ALIAS leaves nothing to
// ask: addresses may rightly remain there from A or AAAA records.
func verifyAlias(ctx context.Context, n *atomic.Int64, addr string, e expectation) (string, error) {
	if e.gone {
		return "", nil
	}
	label := e.name + " ALIAS"
	got, err := addresses(ctx, n, addr, e.name)
	var rc *rcodeError
	if errors.As(err, &rc) {
		// PowerDNS answers SERVFAIL where it cannot resolve the target.
		return fmt.Sprintf("%s: written, but the server answers %s for its addresses; PowerDNS serves an ALIAS only with expand-alias=yes and a resolver= that can resolve %s", label, dns.RcodeToString[rc.rcode], e.values[0]), nil
	}
	if err != nil {
		return "", err
	}
	if len(got) == 0 {
		return fmt.Sprintf("%s: written, but the server answers no A or AAAA records there; PowerDNS serves an ALIAS only with expand-alias=yes and a resolver= that reaches %s", label, e.values[0]), nil
	}
	// The target may live elsewhere; then this server refuses to answer
	// for it, and the name's answer is all there is to check.
	if want, err := addresses(ctx, n, addr, e.values[0]); err == nil && len(want) > 0 && !slices.Equal(got, want) {
		return fmt.Sprintf("%s: written, but the server answers %s, while %s has %s", label, strings.Join(got, ", "), e.values[0], strings.Join(want, ", ")), nil
	}
	return "", nil
}

// addresses returns the A and AAAA records addr serves at name, sorted.
func addresses(ctx context.Context, n *atomic.Int64, addr, name string) ([]string, error) {
	var out []string
	for _, typ := range [...]string{"A", "AAAA"} {
		s, err := query(ctx, n, addr, name, typ)
		if err != nil {
			return nil, err
		}
		out = append(out, s.values...)
	}
	slices.Sort(out)
	return out, nil
}

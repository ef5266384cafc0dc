package compiler

import (
	"net/netip"
	"strings"

	"github.com/miekg/dns"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// publishPTR makes the VM of p the writer of the PTR record of its
// address, naming its first published name, in the tenant's reverse
// zone that covers the address: an RFC 2317 classless zone whose block
// holds it, else the longest zone above its reverse name. The record is
// one more writer, so the one-writer-per-name check sees it beside the
// zone's own records.
func (b *builder) publishPTR(tenant string, pp []string, p *model.Publish, zones map[string]*model.Zone) {
	addr, err := netip.ParseAddr(p.Address)
	if err != nil {
		return // reported at the address
	}
	rev, err := dns.ReverseAddr(addr.String())
	if err != nil {
		b.errorf(pp, "no reverse name for %s: %v", addr, err)
		return
	}
	z, name := coveringZone(addr, rev, zones)
	if z == nil {
		or := ""
		if addr.Is4() {
			or = " (or the RFC 2317 zone your provider delegates for a smaller block, like 0/26." + suggestedReverse(addr, rev) + ")"
		}
		b.errorf(pp, "no zone of tenant %s covers %s, the reverse name of %s: declare the reverse zone %s%s in tenant %s, or remove ptr",
			tenant, rev, addr, suggestedReverse(addr, rev), or, tenant)
		return
	}
	rs := &model.RRset{
		Name: name, Type: "PTR", TTL: z.TTL, Values: []string{p.Names[0]},
		Writer: model.Writer{Kind: model.WriterVMPublish, Tenant: tenant, Element: cuePath(pp[2:]...), Pos: b.pos.pos(pp...)},
	}
	// The reverse name may lie in a block site.cue delegates to another
	// tenant: its PTR is then that tenant's to write.
	if b.delegatedAway(pp, z, rs, nil) {
		return
	}
	p.PTR, p.PTRZone = name, z.Name
	z.RRsets = append(z.RRsets, rs)
}

// coveringZone returns the zone of zones that holds the PTR of addr,
// whose reverse name is rev, and the name of the PTR in it: the smallest
// RFC 2317 block that holds addr (the first by name of those that
// size, as zones has no order), else the longest zone above rev.
func coveringZone(addr netip.Addr, rev string, zones map[string]*model.Zone) (*model.Zone, string) {
	var best, block *model.Zone
	var blockRange addressRange
	last, rest, _ := strings.Cut(rev, ".")
	n, _ := octet(last)
	for _, z := range zones {
		// "0/26.2.0.192.in-addr.arpa." (or "0-63.2.0.192.in-addr.arpa.")
		// holds 192.0.2.0 to .63, as "5.0/26.2.0.192.in-addr.arpa.".
		if r, net, ok := parseBlock(z.Name); ok && addr.Is4() && net == rest && r.holds(n) {
			if block == nil || r.size() < blockRange.size() || r.size() == blockRange.size() && z.Name < block.Name {
				block, blockRange = z, r
			}
		}
		if dnsname.IsSubdomain(rev, z.Name) && (best == nil || len(z.Name) > len(best.Name)) {
			best = z
		}
	}
	if block != nil {
		return block, last + "." + block.Name
	}
	return best, rev
}

// suggestedReverse is the reverse zone to declare for addr: its /24 for
// IPv4, its /64 for IPv6.
func suggestedReverse(addr netip.Addr, rev string) string {
	labels := 1 // the last octet's label
	if addr.Is6() {
		labels = 16 // the interface identifier's nibbles
	}
	return strings.TrimSuffix(strings.SplitN(rev, ".", labels+1)[labels], ".")
}

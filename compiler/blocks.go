package compiler

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// An RFC 2317 block site.cue grants a tenant (delegate:
// ["0/26.2.0.192.in-addr.arpa"]) is not a subdomain of the addresses it
// covers: a resolver asks the /24's zone for 5.2.0.192.in-addr.arpa.
// and reaches the block's zone only through the CNAME that zone holds
// there, to 5.0/26.2.0.192.in-addr.arpa. (RFC 2317 §4). So the /24's
// names for the block's addresses are the block's tenant's as much as
// the names below the block are, and the /24's tenant writes there only
// that CNAME: at or below such a name anything else answers for another
// tenant's address (anotherTenants), and so does a wildcard beside an
// address without its CNAME (wildcardOverBlocks).
//
// site knows a block as a label directly below a /24's reverse name in
// either spelling RFC 2317 and its users give it: BASE/LEN ("0/26", the
// one dnsname accepts with a "/"), or FIRST-LAST ("0-63", which many
// ISPs and BIND configurations use, and which need not be aligned:
// "10-20" names 192.0.2.10 to .20), or BASE-LEN where FIRST-LAST cannot
// be meant ("128-25"). All are an addressRange; a name whose label is
// none of them is an ordinary name.

// addressRange is the last octets of the addresses of a /24 that an
// RFC 2317 block names, first to last.
type addressRange struct{ first, last int }

func (r addressRange) holds(octet int) bool { return r.first <= octet && octet <= r.last }

func (r addressRange) size() int { return r.last - r.first + 1 }

func (r addressRange) overlaps(o addressRange) bool { return r.first <= o.last && o.first <= r.last }

// blockLabel parses label as an RFC 2317 block: "BASE/LEN" (see
// dnsname.Classless) or "FIRST-LAST", two octets without leading zeros
// with FIRST <= LAST ("0-63", "10-20", "7-7"), or, where the two
// cannot be a range, "BASE-LEN" as BASE/LEN ("128-25": 128 to 255,
// which left an ordinary name had protected none of its addresses).
// "63-0" or "00-63" is no block: ok is false, and the label is an
// ordinary name.
func blockLabel(label string) (addressRange, bool) {
	if base, size, err := dnsname.Classless(label); err == nil {
		return addressRange{base, base + size - 1}, true
	}
	f, l, ok := strings.Cut(label, "-")
	first, okF := octet(f)
	last, okL := octet(l)
	if !ok || !okF || !okL {
		return addressRange{}, false
	}
	if first > last {
		// No range: the BASE-LEN spelling ISPs also give a block
		// ("128-25", the /25 from .128), or none.
		if base, size, err := dnsname.Classless(f + "/" + l); err == nil {
			return addressRange{base, base + size - 1}, true
		}
		return addressRange{}, false
	}
	return addressRange{first, last}, true
}

// octet parses an IPv4 address's octet as a reverse name spells it:
// decimal, 0 to 255, without a sign or leading zeros.
func octet(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0 && n <= 255 && s == strconv.Itoa(n)
}

// parseBlock splits name (canonical) into the addresses its first
// label names as an RFC 2317 block and the /24's reverse name it lies
// directly below ("2.0.192.in-addr.arpa."); ok is false for any other
// name, a hyphenated label elsewhere included.
func parseBlock(name string) (r addressRange, net string, ok bool) {
	label, net, _ := strings.Cut(name, ".")
	if reverseV4(net) == "" {
		return addressRange{}, "", false
	}
	r, ok = blockLabel(label)
	return r, net, ok
}

// grantedRange is a block site.cue grants, by its name.
type grantedRange struct {
	name string
	addressRange
}

// blocksByNet indexes the RFC 2317 blocks among claims by the /24's
// reverse name they lie below, each list sorted by name: an address's
// reverse name says only its /24, not which spelling or bounds a block
// holding it has.
func blocksByNet(claims map[string]claim) map[string][]grantedRange {
	nets := map[string][]grantedRange{}
	for _, name := range slices.Sorted(maps.Keys(claims)) {
		if r, net, ok := parseBlock(name); ok {
			nets[net] = append(nets[net], grantedRange{name, r})
		}
	}
	return nets
}

// addressBlock is an address of a granted block, as grantedBlock finds
// it.
type addressBlock struct {
	block, tenant string // the block's name and the tenant site.cue grants it
	rev           string // the address's reverse name in the /24's zone
	addr          string // the address, 192.0.2.5
	octet         int
}

// cname is the one record the /24's zone may hold at the address's
// reverse name: the CNAME into the block.
func (a addressBlock) cname() string { return strconv.Itoa(a.octet) + "." + a.block }

// grantedBlock returns the block site.cue grants that holds the IPv4
// address whose reverse name is name or lies above it: the smallest
// such block (the first by name of those that size), as the most
// specific grant wins (blocks that overlap are one tenant's:
// blockOverlaps), and none when site.cue grants the address's own name
// (or a name below it, name's holder) itself.
func (o *operator) grantedBlock(name string) (addressBlock, bool) {
	head, ok := strings.CutSuffix(name, ".in-addr.arpa.")
	if !ok || strings.Count(head, ".") < 3 {
		return addressBlock{}, false // not at or below an address's name: the common case, cheap
	}
	labels := strings.Split(head, ".")
	labels = labels[len(labels)-4:]
	for _, l := range labels {
		if _, ok := octet(l); !ok {
			return addressBlock{}, false // no address's name ("05", "0/26", "0-63", "x")
		}
	}
	a := addressBlock{
		rev:  strings.Join(labels, ".") + ".in-addr.arpa.",
		addr: labels[3] + "." + labels[2] + "." + labels[1] + "." + labels[0],
	}
	a.octet, _ = octet(labels[0])
	if held, _, ok := o.holder(name); ok && dnsname.IsSubdomain(held, a.rev) {
		return addressBlock{}, false
	}
	bs := o.blocks[strings.TrimPrefix(a.rev, labels[0]+".")]
	best := -1
	for i, b := range bs {
		if b.holds(a.octet) && (best < 0 || b.size() < bs[best].size()) {
			best = i
		}
	}
	if best < 0 {
		return addressBlock{}, false
	}
	a.block, a.tenant = bs[best].name, o.claims[bs[best].name].tenant
	return a, true
}

// blockOverlaps reports RFC 2317 blocks granted to two tenants that
// share an address (0/25 and 0/26 of one /24, or 0/26 and 0-63, or 0-63
// and 32-95): each address's PTR has one holder, and grantedBlock would
// silently give the shared addresses to the smaller block's tenant. It
// is reported at the grant later in the file, as a name granted twice
// is. One tenant may hold blocks that overlap: the addresses are its
// own either way.
func (o *operator) blockOverlaps() Diagnostics {
	var diags Diagnostics
	for _, net := range slices.Sorted(maps.Keys(o.blocks)) {
		bs := o.blocks[net]
		prefix := reverseV4(net)
		for i, x := range bs {
			for _, y := range bs[i+1:] {
				held, again := o.claims[x.name], o.claims[y.name]
				if held.tenant == again.tenant || !x.overlaps(y.addressRange) {
					continue
				}
				heldName, againName := x.name, y.name
				if again.pos.Line < held.pos.Line || again.pos.Line == held.pos.Line && again.pos.Col < held.pos.Col {
					held, again, heldName, againName = again, held, againName, heldName
				}
				diags = append(diags, Diagnostic{Pos: again.pos, Related: []model.Pos{held.pos}, Path: again.path,
					Msg: fmt.Sprintf("RFC 2317 block %s of tenant %s shares addresses %s%d to %s%d with block %s of tenant %s: an address's PTR has one holder, so grant tenant %s a block of addresses tenant %s does not hold, or grant both blocks to one tenant",
						againName, again.tenant, prefix, max(x.first, y.first), prefix, min(x.last, y.last), heldName, held.tenant, again.tenant, held.tenant)})
			}
		}
	}
	return diags
}

// spelledBlock is a name at or below a label that spells, as an RFC
// 2317 block, addresses of a block site.cue grants another tenant, in
// another spelling or bounds ("0-63" or "0/25" for a grant of "0/26").
type spelledBlock struct {
	label       string // the name of the spelling: "0-63.2.0.192.in-addr.arpa."
	block       string // the block granted: "0/26.2.0.192.in-addr.arpa."
	first, last int
}

// blockSpelling returns the block site.cue grants a tenant other than
// tenant whose addresses the block label name lies at or below shares
// (the smallest, the first by name of those that size), unless that
// label is the granted name itself (holder judges that one). The
// spellings are the same to site (see above), so a spelling of another
// tenant's block is that tenant's as much as the granted one: the /24's
// tenant writing at 0-63 or 0/25 would delegate or answer for addresses
// of the 0/26 site.cue grants another.
func (o *operator) blockSpelling(name, tenant string) (spelledBlock, bool) {
	head, ok := strings.CutSuffix(name, ".in-addr.arpa.")
	if !ok || strings.Count(head, ".") < 3 {
		return spelledBlock{}, false
	}
	labels := strings.Split(head, ".")
	labels = labels[len(labels)-4:] // the block label and the /24's three
	net := strings.Join(labels[1:], ".") + ".in-addr.arpa."
	r, ok := blockLabel(labels[0])
	if !ok || len(o.blocks[net]) == 0 {
		return spelledBlock{}, false
	}
	label := labels[0] + "." + net
	best := -1
	bs := o.blocks[net]
	for i, b := range bs {
		if b.name != label && o.claims[b.name].tenant != tenant && b.overlaps(r) && (best < 0 || b.size() < bs[best].size()) {
			best = i
		}
	}
	if best < 0 {
		return spelledBlock{}, false
	}
	return spelledBlock{label: label, block: bs[best].name, first: max(r.first, bs[best].first), last: min(r.last, bs[best].last)}, true
}

// msg says why what (a zone, a record) at name, at or below s.label,
// is not its writer's: about is what to do instead.
func (s spelledBlock) msg(o *operator, what, name, about string) string {
	at := ""
	if name != s.label {
		at = " lies below " + s.label + ", which"
	}
	prefix := reverseV4(parentName(s.label))
	return fmt.Sprintf("%s %s%s spells as an RFC 2317 block addresses %s%d to %s%d of block %s, which site.cue grants to tenant %s: site judges every spelling of a block (BASE/LEN, FIRST-LAST) as one, so those addresses are tenant %s's whatever the spelling; %s",
		what, name, at, prefix, s.first, prefix, s.last, s.block, o.claims[s.block].tenant, o.claims[s.block].tenant, about)
}

// reverseV4 returns "192.0.2." for the /24's reverse name
// "2.0.192.in-addr.arpa.", and "" for any other name.
func reverseV4(net string) string {
	head, ok := strings.CutSuffix(net, ".in-addr.arpa.")
	labels := strings.Split(head, ".")
	if !ok || len(labels) != 3 {
		return ""
	}
	for _, l := range labels {
		if _, ok := octet(l); !ok {
			return ""
		}
	}
	slices.Reverse(labels)
	return strings.Join(labels, ".") + "."
}

// where says where name lies, at or below a.rev, and in which block.
func (a addressBlock) where(name string) string {
	at := "is the reverse name of " + a.addr
	if name != a.rev {
		at = "lies below " + a.rev + ", the reverse name of " + a.addr
	}
	return fmt.Sprintf("%s, in the RFC 2317 block %s, which site.cue grants to tenant %s", at, a.block, a.tenant)
}

// blockMsg says why rs, a record of zone z at or below the reverse name
// of an address of a's block, is not the zone's to write.
func blockMsg(rs *model.RRset, z *model.Zone, a addressBlock) string {
	fix := "remove this record"
	if rs.Writer.Kind == model.WriterVMPublish && rs.Type == "PTR" {
		fix = "remove ptr from this VM"
	}
	return fmt.Sprintf("%s %s %s: zone %s may hold at %s only the CNAME into the block, to %s, and nothing below it; %s (tenant %s writes the address's PTR in its own zone, at %s)",
		rs.Name, rs.Type, a.where(rs.Name), z.Name, a.rev, a.cname(), fix, a.tenant, a.cname())
}

// wildcardOverBlocks reports the wildcard rs at path when it answers
// for addresses of a block site.cue grants another tenant: one at the
// /24's reverse name (over) answers for each address whose name the
// zone does not hold, so every address of the block needs its CNAME
// beside such a wildcard. (A wildcard further up answers for none: the
// block's delegation makes the /24's name exist.)
//
// ix indexes z's RRsets (nil: none, scan).
func (b *builder) wildcardOverBlocks(path []string, z *model.Zone, rs *model.RRset, over string, ix rrIndex) bool {
	if len(b.op.blocks[over]) == 0 {
		return false
	}
	cname := func(name string) string {
		if r := ix.get(z, name, "CNAME"); r != nil && len(r.Values) > 0 {
			return r.Values[0]
		}
		return ""
	}
	var parts []string
	var at []model.Pos
	var example addressBlock
	for _, blk := range b.op.blocks[over] {
		name := blk.name
		if b.op.claims[name].tenant == z.Tenant {
			continue
		}
		var runs []string
		first, last := "", ""
		flush := func() {
			if first != "" && first == last {
				runs = append(runs, first)
			} else if first != "" {
				runs = append(runs, first+" to "+last)
			}
			first = ""
		}
		for n := blk.first; n <= blk.last; n++ {
			a, ok := b.op.grantedBlock(strconv.Itoa(n) + "." + over)
			// A smaller block, or a grant of the address's own name,
			// holds it (and is judged on its own); or it has its CNAME.
			if !ok || a.block != name || strings.EqualFold(cname(a.rev), a.cname()) {
				flush()
				continue
			}
			if first == "" {
				first = a.addr
				if example.block == "" {
					example = a
				}
			}
			last = a.addr
		}
		flush()
		if len(runs) > 0 {
			parts = append(parts, fmt.Sprintf("%s (block %s, tenant %s)", strings.Join(runs, ", "), name, b.op.claims[name].tenant))
			at = append(at, b.op.claims[name].pos)
		}
	}
	if len(parts) == 0 {
		return false
	}
	b.related(path, at, "wildcard %s answers for the reverse names of %s, which have no CNAME into their block in this zone: write each address's CNAME (%q: CNAME: %q), or remove the wildcard",
		rs.Name, strings.Join(parts, "; "), dnsname.Relative(example.rev, z.Name), example.cname())
	return true
}

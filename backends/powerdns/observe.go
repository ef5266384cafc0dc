package powerdns

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
)

// rrKey names one rrset.
type rrKey struct{ name, typ string }

// liveRRset is one rrset as the server showed it.
type liveRRset struct {
	rrKey
	ttl uint32
	// values are the contents exactly as the server returned them,
	// sorted; a disabled record carries a "disabled:" prefix so that it
	// never equals a wanted (served) value, not even after norm (a
	// suffix would read as a zone-file comment and vanish).
	values   []string
	disabled bool
	comments []pdns.Comment
	// owner is the tenant named by a site marker, "" when unmarked.
	owner string
	// wanted is set by diff when the spec wants this name and type.
	wanted bool
	// giveWay is set by diff when the rrset is deleted to make room for
	// a wanted CNAME (or for other data beside a CNAME).
	giveWay bool
}

// atName returns every observed rrset at name. The index is built on
// first use: a converged zone never needs it.
func (o *observation) atName(name string) []*liveRRset {
	if o.byName == nil {
		o.byName = make(map[string][]*liveRRset, len(o.rrsets))
		for _, l := range o.rrsets {
			o.byName[l.name] = append(o.byName[l.name], l)
		}
	}
	return o.byName[name]
}

// hasData reports whether the rrset holds records; PowerDNS lists an
// rrset that only has comments with no records.
func (l *liveRRset) hasData() bool { return len(l.values) > 0 }

// observation is everything one GET of a zone showed.
type observation struct {
	absent bool
	rrsets map[rrKey]*liveRRset
	byName map[string][]*liveRRset // built on first use, see atName
	// sum accumulates the digests of every rrset, the SOA included.
	sum [4]uint64
}

// observe indexes a zone; nil means the zone does not exist.
func observe(z *pdns.Zone) *observation {
	if z == nil {
		return &observation{absent: true, rrsets: map[rrKey]*liveRRset{}}
	}
	o := &observation{rrsets: make(map[rrKey]*liveRRset, len(z.RRsets))}
	// One slab for the rrsets and one for their values instead of a few
	// small allocations per rrset: a 10,000-rrset zone is otherwise tens
	// of thousands of objects for the collector to track.
	slab := make([]liveRRset, len(z.RRsets))
	records := 0
	for i := range z.RRsets {
		records += len(z.RRsets[i].Records)
	}
	vals := make([]string, records)
	var scratch []byte
	for i := range z.RRsets {
		rs := &z.RRsets[i]
		l := &slab[i]
		l.rrKey = rrKey{strings.ToLower(pdns.StringValue(rs.Name)), strings.ToUpper(string(derefType(rs.Type)))}
		l.ttl, l.comments = pdns.Uint32Value(rs.TTL), rs.Comments
		n := len(rs.Records)
		if n > 0 { // an rrset with comments only has nil values, not empty ones
			l.values, vals = vals[:n:n], vals[n:]
		}
		for j, r := range rs.Records {
			v := pdns.StringValue(r.Content)
			if pdns.BoolValue(r.Disabled) {
				v = "disabled:" + v
				l.disabled = true
			}
			l.values[j] = v
		}
		if n > 1 {
			slices.Sort(l.values)
		}
		for _, c := range rs.Comments {
			if pdns.StringValue(c.Account) == MarkerAccount {
				if t, ok := backends.DNSMarkerOwner(pdns.StringValue(c.Content)); ok {
					l.owner = claim(l.owner, t)
				}
			}
		}
		var d [sha256.Size]byte
		d, scratch = l.digest(scratch)
		for i := range o.sum {
			o.sum[i] += binary.BigEndian.Uint64(d[i*8:])
		}
		if l.typ == "SOA" {
			continue
		}
		o.rrsets[l.rrKey] = l
	}
	return o
}

// claim adds tenant t to the owner read so far. Two tenants' markers on
// one rrset (site keeps only one; a hand can add another) make it
// nobody's for certain: the owner becomes both names, sorted, which no
// tenant is, so neither deletes it and either takes it only behind
// GATE-DNS-OVERWRITE, whatever order the server lists comments in.
func claim(owner, t string) string {
	if owner == "" || owner == t {
		return t
	}
	names := strings.Split(owner, " and ")
	if slices.Contains(names, t) {
		return owner
	}
	names = append(names, t)
	slices.Sort(names)
	return strings.Join(names, " and ")
}

func derefType(t *pdns.RRType) pdns.RRType {
	if t == nil {
		return ""
	}
	return *t
}

// digest is a hash of everything in the rrset that matters to a plan,
// and nothing that changes on its own (comment modification times).
// scratch is reused across rrsets and the sum stays on the stack, so
// hashing allocates nothing.
func (l *liveRRset) digest(scratch []byte) ([sha256.Size]byte, []byte) {
	b := scratch[:0]
	put := func(tag byte, s string) {
		b = append(b, tag)
		b = append(b, s...)
	}
	put(0, l.name)
	put(1, l.typ)
	b = strconv.AppendUint(append(b, 2), uint64(l.ttl), 10)
	for _, v := range l.values {
		put(3, v)
	}
	switch len(l.comments) {
	case 0:
	case 1:
		put(4, pdns.StringValue(l.comments[0].Account))
		put(5, pdns.StringValue(l.comments[0].Content))
	default:
		cs := make([]string, 0, len(l.comments))
		for _, c := range l.comments {
			cs = append(cs, pdns.StringValue(c.Account)+"\x00"+pdns.StringValue(c.Content))
		}
		slices.Sort(cs)
		for _, c := range cs {
			put(6, c)
		}
	}
	return sha256.Sum256(b), b
}

// fingerprint names what was observed, so a saved plan can be refused
// when anything in the zone (the SOA serial included) has moved since.
// It is the sum of the rrsets' digests, lane by lane: independent of
// the order the server lists rrsets in, without sorting them.
func (o *observation) fingerprint() string {
	if o.absent {
		return "powerdns:absent"
	}
	var b [32]byte
	for i := range 4 {
		binary.BigEndian.PutUint64(b[i*8:], o.sum[i])
	}
	return "powerdns:" + hex.EncodeToString(b[:])
}

// norm puts a record's content in one form so that two spellings of the
// same data compare equal: miekg/dns parses and prints it (an AAAA in any
// notation, spacing), and domain names in rdata are lower-cased since DNS
// compares them without case. Content it cannot parse is kept as is and
// simply compares by its text.
func norm(typ, content string) string {
	rr, err := dns.NewRR(". 0 IN " + typ + " " + content)
	if err != nil || rr == nil {
		return content
	}
	return foldNames(typ, strings.TrimPrefix(rr.String(), rr.Header().String()))
}

// foldNames lower-cases the rdata of types whose data is names and numbers.
func foldNames(typ, s string) string {
	switch typ {
	case "CNAME", "NS", "PTR", "MX", "SRV", "DNAME":
		return strings.ToLower(s)
	}
	return s
}

// sameValues reports whether live and wanted contents are the same data.
// Both are sorted; the server mostly returns exactly what site wrote, so
// the cheap comparison settles almost every rrset and norm runs only on
// the rest.
func sameValues(typ string, live, want []string) bool {
	if len(live) != len(want) {
		return false
	}
	same := true
	for i := range live {
		if live[i] != want[i] {
			same = false
			break
		}
	}
	if same {
		return true
	}
	a, b := normAll(typ, live), normAll(typ, want)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// normAll normalises and sorts values.
func normAll(typ string, values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = norm(typ, v)
	}
	slices.Sort(out)
	return out
}

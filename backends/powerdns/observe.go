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
	"github.com/site-tools/site/backends/dnsplan"
)

// rrKey names one rrset, in what verify serves and what write deletes.
type rrKey struct{ name, typ string }

// observation is everything one GET of a zone showed.
type observation struct {
	absent bool
	// rrsets is the planner's view of the zone: each RRset's Provider is
	// the *pdns.RRset it came from, for its comments. Irregular means a
	// disabled record, whose value carries a "disabled:" prefix so that
	// it never equals a wanted (served) value, not even after norm (a
	// suffix would read as a zone-file comment and vanish).
	*dnsplan.Observed
	// sum accumulates the digests of every rrset, the SOA included.
	sum [4]uint64
}

// comments returns the comments the server listed with l.
func comments(l *dnsplan.RRset) []pdns.Comment { return l.Provider.(*pdns.RRset).Comments }

// observe indexes a zone; nil means the zone does not exist.
func observe(z *pdns.Zone) *observation {
	if z == nil {
		return &observation{absent: true, Observed: dnsplan.NewObserved(0)}
	}
	o := &observation{Observed: dnsplan.NewObserved(len(z.RRsets))}
	// One slab for the rrsets and one for their values instead of a few
	// small allocations per rrset: a 10,000-rrset zone is otherwise tens
	// of thousands of objects for the collector to track.
	slab := make([]dnsplan.RRset, len(z.RRsets))
	records := 0
	for i := range z.RRsets {
		records += len(z.RRsets[i].Records)
	}
	vals := make([]string, records)
	var scratch []byte
	for i := range z.RRsets {
		rs := &z.RRsets[i]
		l := &slab[i]
		l.Name, l.Type = strings.ToLower(pdns.StringValue(rs.Name)), strings.ToUpper(string(derefType(rs.Type)))
		l.TTL, l.Provider = pdns.Uint32Value(rs.TTL), rs
		n := len(rs.Records)
		if n > 0 { // an rrset with comments only has nil values, not empty ones
			l.Values, vals = vals[:n:n], vals[n:]
		}
		for j, r := range rs.Records {
			v := pdns.StringValue(r.Content)
			if pdns.BoolValue(r.Disabled) {
				v = "disabled:" + v
				l.Irregular = true
			}
			l.Values[j] = v
		}
		if n > 1 {
			slices.Sort(l.Values)
		}
		for _, c := range rs.Comments {
			if pdns.StringValue(c.Account) == MarkerAccount {
				if t, ok := backends.DNSMarkerOwner(pdns.StringValue(c.Content)); ok {
					l.Owner = dnsplan.Claim(l.Owner, t)
				}
			}
		}
		var d [sha256.Size]byte
		d, scratch = digest(l, scratch)
		for i := range o.sum {
			o.sum[i] += binary.BigEndian.Uint64(d[i*8:])
		}
		if l.Type == "SOA" {
			o.SOA = l
			continue
		}
		o.Sets[l.NameType] = l
	}
	return o
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
func digest(l *dnsplan.RRset, scratch []byte) ([sha256.Size]byte, []byte) {
	b := scratch[:0]
	put := func(tag byte, s string) {
		b = append(b, tag)
		b = append(b, s...)
	}
	put(0, l.Name)
	put(1, l.Type)
	b = strconv.AppendUint(append(b, 2), uint64(l.TTL), 10)
	for _, v := range l.Values {
		put(3, v)
	}
	switch cs := comments(l); len(cs) {
	case 0:
	case 1:
		put(4, pdns.StringValue(cs[0].Account))
		put(5, pdns.StringValue(cs[0].Content))
	default:
		texts := make([]string, 0, len(cs))
		for _, c := range cs {
			texts = append(texts, pdns.StringValue(c.Account)+"\x00"+pdns.StringValue(c.Content))
		}
		slices.Sort(texts)
		for _, c := range texts {
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

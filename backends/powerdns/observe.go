package powerdns

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
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
}

// hasData reports whether the rrset holds records; PowerDNS lists an
// rrset that only has comments with no records.
func (l *liveRRset) hasData() bool { return len(l.values) > 0 }

// observation is everything one GET of a zone showed.
type observation struct {
	absent bool
	rrsets map[rrKey]*liveRRset
	byName map[string][]*liveRRset
	// soa is kept for the fingerprint only: site never writes it.
	lines []string
}

// observe indexes a zone; nil means the zone does not exist.
func observe(z *pdns.Zone) *observation {
	if z == nil {
		return &observation{absent: true, rrsets: map[rrKey]*liveRRset{}, byName: map[string][]*liveRRset{}}
	}
	o := &observation{rrsets: make(map[rrKey]*liveRRset, len(z.RRsets)), byName: make(map[string][]*liveRRset, len(z.RRsets)),
		lines: make([]string, 0, len(z.RRsets))}
	for _, rs := range z.RRsets {
		k := rrKey{strings.ToLower(pdns.StringValue(rs.Name)), strings.ToUpper(string(derefType(rs.Type)))}
		l := &liveRRset{rrKey: k, ttl: pdns.Uint32Value(rs.TTL), comments: rs.Comments}
		for _, r := range rs.Records {
			v := pdns.StringValue(r.Content)
			if pdns.BoolValue(r.Disabled) {
				v = "disabled:" + v
				l.disabled = true
			}
			l.values = append(l.values, v)
		}
		sort.Strings(l.values)
		for _, c := range rs.Comments {
			if pdns.StringValue(c.Account) == MarkerAccount {
				if t, ok := strings.CutPrefix(pdns.StringValue(c.Content), Marker("")); ok {
					l.owner = t
				}
			}
		}
		o.lines = append(o.lines, l.line())
		if k.typ == "SOA" {
			continue
		}
		o.rrsets[k] = l
		o.byName[k.name] = append(o.byName[k.name], l)
	}
	return o
}

func derefType(t *pdns.RRType) pdns.RRType {
	if t == nil {
		return ""
	}
	return *t
}

// line is the rrset in one stable line for the fingerprint: everything
// that matters to a plan, and nothing that changes on its own (comment
// modification times).
func (l *liveRRset) line() string {
	// Built by hand rather than with fmt: this runs once per rrset on
	// every diff, and fmt was a tenth of a 10,000-rrset diff.
	var b strings.Builder
	b.WriteString(l.name)
	b.WriteByte(' ')
	b.WriteString(l.typ)
	b.WriteByte(' ')
	b.WriteString(strconv.FormatUint(uint64(l.ttl), 10))
	for _, v := range l.values {
		b.WriteString(" \x00")
		b.WriteString(v)
	}
	cs := make([]string, 0, len(l.comments))
	for _, c := range l.comments {
		cs = append(cs, pdns.StringValue(c.Account)+"\x00"+pdns.StringValue(c.Content))
	}
	sort.Strings(cs)
	for _, c := range cs {
		b.WriteString(" \x01")
		b.WriteString(c)
	}
	return b.String()
}

// fingerprint hashes what was observed, so a saved plan can be refused
// when anything in the zone (the SOA serial included) has moved since.
func (o *observation) fingerprint() string {
	h := sha256.New()
	if o.absent {
		h.Write([]byte("absent"))
	} else {
		lines := append([]string(nil), o.lines...)
		sort.Strings(lines)
		for _, l := range lines {
			h.Write([]byte(l))
			h.Write([]byte{'\n'})
		}
	}
	return "powerdns:" + hex.EncodeToString(h.Sum(nil))[:32]
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
	sort.Strings(out)
	return out
}

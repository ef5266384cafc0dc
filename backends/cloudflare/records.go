package cloudflare

import (
	"fmt"
	"strconv"
	"strings"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// Marker is the owner marker site writes into a record's comment; it
// names the tenant (backends.DNSMarker, the same text as on PowerDNS).
func Marker(tenant string) string { return backends.DNSMarker(tenant) }

// owner returns the tenant a comment's marker names, "" when unmarked.
func owner(comment string) string {
	t, _ := backends.DNSMarkerOwner(comment)
	return t
}

// record is one live Cloudflare record in the model's terms.
type record struct {
	id      string
	name    string // canonical: lower case, trailing dot
	typ     string
	value   string // canonical presentation form, as in model.RRset.Values
	ttl     uint32 // 1 is Cloudflare's "automatic"
	proxied bool
	comment string
	owner   string // tenant named by the marker, "" when none
}

// fromCloudflare converts a listed record of the zone named apex
// (canonical). ok is false for a type site does not manage. A CNAME at
// the apex is what Cloudflare makes of an ALIAS (it flattens it), so it
// reads as one.
func fromCloudflare(r cf.DNSRecord, apex string) (rec record, ok bool, err error) {
	typ := strings.ToUpper(r.Type)
	if !rdata.IsType(typ) {
		return record{}, false, nil
	}
	if typ == "CNAME" && fqdn(r.Name) == apex {
		typ = "ALIAS"
	}
	rec = record{id: r.ID, name: fqdn(r.Name), typ: typ, ttl: uint32(max(r.TTL, 0)),
		proxied: r.Proxied != nil && *r.Proxied, comment: r.Comment, owner: owner(r.Comment)}
	var v string
	switch typ {
	case "CNAME", "NS", "PTR", "ALIAS":
		v, err = rdata.Normalize(typ, fqdn(r.Content))
	case "SSHFP", "TLSA", "DS", "NAPTR", "HTTPS", "SVCB", "CERT", "SMIMEA":
		if d, ok := r.Data.(map[string]any); ok && len(d) > 0 {
			v, err = fromData(typ, d)
		} else {
			v, err = rdata.Normalize(typ, r.Content)
		}
	case "URI":
		// The priority is the record's own field, as an MX's is.
		if d, ok := r.Data.(map[string]any); ok && d["target"] != nil {
			v, err = rdata.URI(prio(r.Priority), num(d["weight"]), fmt.Sprint(d["target"]))
		} else {
			err = fmt.Errorf("URI record without data")
		}
	case "LOC":
		if d, ok := r.Data.(map[string]any); ok && len(d) > 0 {
			v, err = fromLOCData(d)
		} else {
			v, err = rdata.Normalize(typ, r.Content)
		}
	case "MX":
		v, err = rdata.MX(prio(r.Priority), fqdn(r.Content))
	case "SRV":
		if d, ok := r.Data.(map[string]any); ok && d["target"] != nil {
			v, err = rdata.SRV(num(d["priority"]), num(d["weight"]), num(d["port"]), fqdn(fmt.Sprint(d["target"])))
		} else if f := strings.Fields(r.Content); len(f) == 3 {
			// Without data the content is "weight port target" and the
			// priority is its own field.
			v, err = rdata.SRV(prio(r.Priority), atoi(f[0]), atoi(f[1]), fqdn(f[2]))
		} else {
			err = fmt.Errorf("SRV content %q is not \"weight port target\"", r.Content)
		}
	case "TXT":
		if strings.HasPrefix(strings.TrimSpace(r.Content), `"`) {
			v, err = rdata.Normalize(typ, r.Content)
		} else {
			// Older answers (and records made in the dashboard without
			// quotes) carry the text itself: one string, spaces and all,
			// not presentation form.
			v = rdata.TXT(r.Content)
		}
	case "CAA":
		if d, ok := r.Data.(map[string]any); ok && d["tag"] != nil {
			v, err = rdata.CAA(num(d["flags"]), fmt.Sprint(d["tag"]), fmt.Sprint(d["value"]))
		} else {
			v, err = rdata.Normalize(typ, r.Content)
		}
	default:
		v, err = rdata.Normalize(typ, r.Content)
	}
	if err != nil {
		return record{}, false, fmt.Errorf("record %s %s %q (id %s): %w", r.Name, typ, r.Content, r.ID, err)
	}
	rec.value = v
	return rec, true, nil
}

// body is a record as the create, patch, put and batch endpoints take it.
// Pointers and omitempty keep a PATCH to the fields it sets.
type body struct {
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Name     string         `json:"name,omitempty"`
	Content  string         `json:"content,omitempty"`
	Priority *uint16        `json:"priority,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
	TTL      int            `json:"ttl,omitempty"`
	Proxied  *bool          `json:"proxied,omitempty"`
	Comment  *string        `json:"comment,omitempty"`
}

// toCloudflare converts one wanted value into Cloudflare's fields:
// names without the trailing dot, MX priority apart, SRV, CAA and the
// struct types as data, an ALIAS as a CNAME (which Cloudflare flattens
// at the apex, the only place the compiler lets an ALIAS be on
// Cloudflare). proxied is always sent, so a record site writes is
// proxied exactly when the spec says so.
func toCloudflare(w *model.RRset, value string, comment string) (body, error) {
	typ, proxied := w.Type, w.Proxied
	b := body{Type: typ, Name: strings.TrimSuffix(w.Name, "."), TTL: int(w.TTL), Proxied: &proxied, Comment: &comment}
	switch typ {
	case "A", "AAAA", "OPENPGPKEY":
		b.Content = value
	case "TXT":
		// Cloudflare documents TXT content as quoted character-strings,
		// which is the model's form.
		b.Content = value
	case "CNAME", "NS", "PTR":
		b.Content = hostname(value)
	case "ALIAS":
		b.Type, b.Content = "CNAME", hostname(value)
	case "SSHFP", "TLSA", "DS", "NAPTR", "HTTPS", "SVCB", "CERT", "SMIMEA":
		d, err := toData(typ, value)
		if err != nil {
			return body{}, err
		}
		b.Data = d
	case "URI":
		// The target is a URI, not a host name: sent as it is.
		p, w, t, err := rdata.ParseURI(value)
		if err != nil {
			return body{}, err
		}
		pr := uint16(p)
		b.Priority, b.Data = &pr, map[string]any{"weight": w, "target": t}
	case "LOC":
		d, err := locData(value)
		if err != nil {
			return body{}, err
		}
		b.Data = d
	case "MX":
		p, h, err := rdata.ParseMX(value)
		if err != nil {
			return body{}, err
		}
		pr := uint16(p)
		b.Priority, b.Content = &pr, hostname(h)
	case "SRV":
		p, w, port, t, err := rdata.ParseSRV(value)
		if err != nil {
			return body{}, err
		}
		b.Data = map[string]any{"priority": p, "weight": w, "port": port, "target": hostname(t)}
	case "CAA":
		f, tag, v, err := rdata.ParseCAA(value)
		if err != nil {
			return body{}, err
		}
		b.Data = map[string]any{"flags": f, "tag": tag, "value": v}
	default:
		return body{}, fmt.Errorf("record type %s is not supported by the Cloudflare backend", typ)
	}
	return b, nil
}

// hostname is a host name as Cloudflare takes it: without the trailing
// dot, except the root itself, "." (a null MX, RFC 7505, or an SRV
// target saying "no such service"), which would otherwise be sent empty
// and refused, or stored empty and then be unreadable.
func hostname(s string) string {
	if s == "." {
		return s
	}
	return strings.TrimSuffix(s, ".")
}

// fqdn turns a Cloudflare name (no trailing dot, any case) into the
// model's canonical form.
func fqdn(s string) string {
	s = strings.ToLower(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

func prio(p *uint16) int {
	if p == nil {
		return 0
	}
	return int(*p)
}

func atoi(s string) int {
	i, err := strconv.Atoi(s)
	if err != nil {
		return -1 // out of range: the rdata formatter refuses it
	}
	return i
}

func num(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return atoi(fmt.Sprint(v))
}

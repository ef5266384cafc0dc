// Package rules describes, as data, where a DNS provider takes less than
// DNS does: the record types it serves, its TTL range, the types it
// proxies, the values it refuses, its SOA ranges. Each provider declares
// its Rules in its own package (backends/cloudflare/rules.go), the
// provider table (backends/providers) gathers them into a Set, and vet
// checks a zone's records against the Rules of each provider serving it
// (compiler.UseRules). The compiler holds no provider's rules itself, and
// a backend reads its own before it writes.
//
// The package is a leaf both sides import: it knows DNS values
// (compiler/rdata), the model's plain types (a Rate), and nothing of
// CUE or of any backend.
package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// Rules is what one provider kind serves where it takes less than DNS.
// The zero value of each field means "what DNS takes": a provider with
// no limits declares only Kind and Name.
type Rules struct {
	// Kind is the provider kind site.cue names ("cloudflare").
	Kind string
	// Name names the provider in messages ("Cloudflare").
	Name string
	// Instead is the advice for a record the provider cannot serve at
	// all ("serve this zone from PowerDNS"); a message adds ", or
	// remove" the record.
	Instead string
	// Types lists the record types it serves; nil is every type site
	// manages.
	Types []string
	// TTL bounds a record's TTL; nil is DNS's range.
	TTL *TTLRange
	// ApexOnly lists types it serves at the zone apex only.
	ApexOnly []ApexOnly
	// Values lists the values of a record's field it refuses.
	Values []ValueRule
	// Proxy is its proxy (proxied: true); nil: it has none.
	Proxy *Proxy
	// SOA says what it takes of a zone's SOA fields; nil: all DNS does.
	SOA *SOARules
	// Rate is the request budget of a provider of this kind whose
	// site.cue entry sets no rate (the API's documented limit); nil:
	// none.
	Rate *model.Rate
	// IgnoreValue, when not empty, refuses an ignore rule with a value
	// on its zones, and says why.
	IgnoreValue string
}

// TTLRange bounds a TTL: Min to Max seconds, or Auto when not 0 (a
// value the provider reads as "automatic").
type TTLRange struct {
	Auto, Min, Max int64
}

// ApexOnly is a type served only at the apex, and what to write below
// it: Below is told the first value ("below the apex write CNAME").
type ApexOnly struct {
	Type, Why, Below string
}

// ValueRule refuses the values of a field of a type's records: Refused
// maps each refused value to what it means in DNS ("." to "(no such
// service)"), Why says why the provider refuses them ("whose API takes
// only a hostname there").
type ValueRule struct {
	Type, Field string
	Refused     map[string]string
	Why         string
}

// Proxy is a provider's proxy: the types it proxies (Types, said in
// messages as Says), and the TTL it reports for a proxied record (TTL,
// said as TTLSays), which replaces any the spec would set.
type Proxy struct {
	Types   []string
	Says    string
	TTL     uint32
	TTLSays string
}

// SOARules is what a provider takes of the SOA fields a zone sets:
// Ranges bounds the integer fields by name (refresh, retry, expire,
// minimum); Primary, when not empty, refuses soa.primary and says why.
type SOARules struct {
	Ranges  map[string]Range
	Primary string
}

// Range is Min to Max, both included.
type Range struct{ Min, Max int64 }

// Set holds the Rules of each provider kind, by Kind.
type Set map[string]*Rules

// NewSet is the Set of rs, each under its Kind.
func NewSet(rs ...*Rules) Set {
	s := make(Set, len(rs))
	for _, r := range rs {
		s[r.Kind] = r
	}
	return s
}

// Serves reports whether the provider serves records of typ.
func (r *Rules) Serves(typ string) bool {
	return r.Types == nil || slices.Contains(r.Types, typ)
}

// TypeError refuses typ when the provider does not serve it.
func (r *Rules) TypeError(typ string) error {
	if r.Serves(typ) {
		return nil
	}
	return fmt.Errorf("%s has no %s records; %s, or remove them", r.Name, typ, r.Instead)
}

// ApexError refuses records of typ with values at a name other than
// the apex when the provider serves typ at the apex only; the message
// shows the first value written as Below says.
func (r *Rules) ApexError(typ string, values []string, atApex bool) error {
	if atApex {
		return nil
	}
	for _, a := range r.ApexOnly {
		if a.Type == typ {
			first := ""
			if len(values) > 0 {
				first = values[0]
			}
			return fmt.Errorf("on %s %s; %s: %q", r.Name, a.Why, a.Below, first)
		}
	}
	return nil
}

// TTLError refuses a TTL outside the provider's range.
func (r *Rules) TTLError(n int64) error {
	t := r.TTL
	if t == nil || (t.Auto != 0 && n == t.Auto) || (n >= t.Min && n <= t.Max) {
		return nil
	}
	if t.Auto != 0 {
		return fmt.Errorf("TTL %d is outside what %s takes; use %d (automatic) or %d to %d seconds", n, r.Name, t.Auto, t.Min, t.Max)
	}
	return fmt.Errorf("TTL %d is outside what %s takes; use %d to %d seconds", n, r.Name, t.Min, t.Max)
}

// ValueError refuses a canonical value of typ holding a value the
// provider refuses in one of its fields, with what to do instead.
func (r *Rules) ValueError(typ, value string) error {
	for _, v := range r.Values {
		if v.Type != typ {
			continue
		}
		if f, ok := Field(typ, v.Field, value); ok {
			if means, refused := v.Refused[f]; refused {
				return fmt.Errorf("%s %s %q %s is refused by %s, %s; %s, or remove the record",
					typ, v.Field, f, means, r.Name, v.Why, r.Instead)
			}
		}
	}
	return nil
}

// FieldError refuses value in field of a type's records, in the few
// words a backend's last check before writing lists each refusal in.
func (r *Rules) FieldError(typ, field, value string) error {
	for _, v := range r.Values {
		if _, refused := v.Refused[value]; refused && v.Type == typ && v.Field == field {
			return fmt.Errorf("%s %s %q is refused by %s, %s", typ, field, value, r.Name, v.Why)
		}
	}
	return nil
}

// Field is the string field named field of a canonical value of typ
// (an SRV's target, an HTTPS's target), false when the value has no
// such field or does not parse.
func Field(typ, field, value string) (string, bool) {
	if typ == "SRV" {
		// SRV has no struct form in rdata's table: it is written as
		// one string in the language.
		_, _, _, target, err := rdata.ParseSRV(value)
		return target, err == nil && field == "target"
	}
	fields, err := rdata.ToFields(typ, value)
	if err != nil {
		return "", false
	}
	s, ok := fields[field].(string)
	return s, ok
}

// Proxies reports whether the provider proxies records of typ.
func (r *Rules) Proxies(typ string) bool {
	return r.Proxy != nil && slices.Contains(r.Proxy.Types, typ)
}

// ProxyOwners names the kinds of s that have a proxy, for a message
// about proxied on a provider without one: "Cloudflare's".
func (s Set) ProxyOwners() string {
	var names []string
	for _, r := range s {
		if r.Proxy != nil {
			names = append(names, r.Name+"'s")
		}
	}
	slices.Sort(names)
	return strings.Join(names, " or ")
}

// SOAError refuses the value n of SOA field name outside the
// provider's range for it.
func (r *Rules) SOAError(name string, n int64) error {
	if r.SOA == nil {
		return nil
	}
	if g, ok := r.SOA.Ranges[name]; ok && (n < g.Min || n > g.Max) {
		return fmt.Errorf("soa %s %d is outside what %s takes; use %d to %d", name, n, r.Name, g.Min, g.Max)
	}
	return nil
}

// PrimaryError refuses soa.primary when the provider names its own.
func (r *Rules) PrimaryError() error {
	if r.SOA == nil || r.SOA.Primary == "" {
		return nil
	}
	return fmt.Errorf("soa primary: %s %s; remove primary from this zone's soa", r.Name, r.SOA.Primary)
}

// ProxyTTLError refuses a TTL beside proxied: true, at the name (typ
// "") or in its ttls entry for typ, since the provider answers for a
// proxied record with a TTL of its own.
func (r *Rules) ProxyTTLError(typ string) error {
	p := r.Proxy
	if typ == "" {
		return fmt.Errorf("a proxied name is served with %s's own TTL (it reports %d, %s); remove ttl, or proxied", r.Name, p.TTL, p.TTLSays)
	}
	return fmt.Errorf("a proxied %s is served with %s's own TTL (it reports %d, %s); remove its ttls entry, or proxied", typ, r.Name, p.TTL, p.TTLSays)
}

// ProxyTypeError refuses proxied: true over records of a type the
// provider does not proxy.
func (r *Rules) ProxyTypeError(typ string) error {
	if r.Proxies(typ) {
		return nil
	}
	return fmt.Errorf("%s proxies only %s, not %s; move the %s records to a name without proxied: true", r.Name, r.Proxy.Says, typ, typ)
}

// IgnoreValueError refuses an ignore rule with a value on the
// provider's zones; whole is what to ignore instead (a type, or
// "name").
func (r *Rules) IgnoreValueError(whole string) error {
	if r.IgnoreValue == "" {
		return nil
	}
	return fmt.Errorf("%s: remove value, or ignore the whole %s", r.IgnoreValue, whole)
}

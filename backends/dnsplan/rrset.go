// Package dnsplan is the one DNS planner every DNS provider shares.
//
// A provider observes a zone into an Observed (a list of neutral RRsets:
// name, type, TTL, sorted values, owner, and the provider's own data
// carried opaquely), calls Plan with the zone step and a few Hooks for
// what really differs between providers, and turns the returned Ops into
// its own writes (a PowerDNS PATCH body, a Cloudflare batch). The safety
// policy lives here once:
//
//   - Ownership: an RRset is ours only when every record carries this
//     tenant's marker. Only ours is updated or deleted without a gate.
//   - Identical foreign data is adopted (marker only, served data
//     unchanged); another tenant's marker makes that a takeover behind
//     GATE-DNS-OVERWRITE. Foreign data that differs is overwritten only
//     behind GATE-DNS-OVERWRITE.
//   - Conflicts: a type that cannot share its name with a wanted type
//     (Hooks.Conflicts; a CNAME beside anything by default) gives way,
//     behind GATE-DNS-OVERWRITE unless it is ours. Two markers on one
//     RRset make it nobody's (see Claim).
//   - Deletes: only what carries this tenant's marker and is no longer
//     wanted (with Hooks.PerRecord, this tenant's records of a shared
//     RRset), from a zone observed completely; more than
//     Run.DeleteManyPercent of ours at once needs GATE-DNS-DELETE-MANY,
//     and so does, whatever the zone's size, deleting all of ours or
//     more than half of 3 or more.
//   - Another tenant's marked RRsets that the spec does not want are
//     neither changed nor deleted, and the plan notes them (strays.go):
//     no run would touch them again.
//   - The apex NS is never removed.
//   - Ignored: what a zone's ignore rule covers is neither adopted,
//     changed nor deleted, and not counted by the delete gate (the
//     compiler refuses a wanted RRset that a rule covers).
//
// The split follows external-dns (ownership as its own layer between
// plan and provider) and DNSControl's pkg/diff2 (one differ, providers
// only encode), read as style models.
package dnsplan

import (
	"cmp"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// NameType names one RRset.
type NameType struct{ Name, Type string }

// RRset is one observed RRset in provider-neutral terms.
type RRset struct {
	NameType
	TTL uint32
	// Values are the records' contents, sorted, in the form the provider
	// compares (Hooks.Same).
	Values []string
	// Owner is the tenant the site markers name ("" when none does);
	// several markers make it a Claim of all of them, which is no tenant.
	Owner string
	// Partial: some records carry a marker and some do not (a provider
	// that marks each record). Such an RRset is not wholly anyone's.
	Partial bool
	// Irregular: the live data holds what site never writes (a disabled
	// record, records with different TTLs, proxied and unproxied records
	// in one RRset), so it never equals a wanted RRset.
	Irregular bool
	// Proxied: the provider serves the records through its proxy
	// (Cloudflare); compared with the wanted RRset's Proxied.
	Proxied bool
	// Provider is the provider's own data for this RRset (its records,
	// ids, comments), carried for its encoder; the planner never reads it.
	Provider any

	wanted  bool // the spec wants this name and type
	giveWay bool // deleted to make room for a conflicting wanted type
	ignored bool // a zone's ignore rule covers it: left alone, not counted
	// kept are the values a zone's ignore rule with a value covers
	// (see kept.go): written back beside what the spec wants there.
	kept []string
}

// HasData reports whether the RRset holds records; PowerDNS lists an
// RRset that has only comments with no records.
func (l *RRset) HasData() bool { return len(l.Values) > 0 }

// ours reports whether the RRset is wholly tenant's.
func (l *RRset) ours(tenant string) bool { return l.Owner == tenant && !l.Partial }

// OwnerText says who wrote l, for reasons.
func (l *RRset) OwnerText() string {
	switch {
	case l.Owner == "":
		return "written outside site (no owner marker)"
	case l.Partial:
		return "owned in part by site tenant " + l.Owner + ", the rest written outside site"
	}
	return "owned by site tenant " + l.Owner
}

// Observed is one complete observation of a zone.
type Observed struct {
	Sets map[NameType]*RRset
	// SOA is the zone's SOA, which Sets leaves out: it is never adopted,
	// given way or deleted, only updated where the zone's soa says so.
	SOA    *RRset
	byName map[string][]*RRset // built on first use, see atName
}

// NewObserved returns an empty observation with room for n RRsets.
func NewObserved(n int) *Observed { return &Observed{Sets: make(map[NameType]*RRset, n)} }

// atName returns every observed RRset at name. The index is built on
// first use: a converged zone never needs it.
func (o *Observed) atName(name string) []*RRset {
	if o.byName == nil {
		o.byName = make(map[string][]*RRset, len(o.Sets))
		for _, l := range o.Sets {
			o.byName[l.Name] = append(o.byName[l.Name], l)
		}
	}
	return o.byName[name]
}

// Claim adds tenant t to the owner read so far. Two tenants' markers on
// one RRset (site writes only one; a hand can add another) make it
// nobody's for certain: the owner becomes both names, sorted, which no
// tenant is, so neither deletes it and either takes it only behind
// GATE-DNS-OVERWRITE, whatever order the provider lists markers in.
func Claim(owner, t string) string {
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

// Key is the resource key of one RRset: dns/<zone>/<name>/<type>.
func Key(zone, name, typ string) string { return "dns/" + zone + "/" + name + "/" + typ }

// Compare orders wanted RRsets by name, then type: the order the
// compiler hands them over in, and the order Plan works in.
func Compare(a, b *model.RRset) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type))
}

// SignerType reports whether typ is a record type a DNSSEC signer makes
// from the zone's keys (DNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM, CDS,
// CDNSKEY). site never writes these: it asks the provider to sign.
func SignerType(typ string) bool {
	switch typ {
	case "DNSKEY", "RRSIG", "NSEC", "NSEC3", "NSEC3PARAM", "CDS", "CDNSKEY":
		return true
	}
	return false
}

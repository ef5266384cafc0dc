package powerdns

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/miekg/dns"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// A PowerDNS server can serve data its API does not list: with a second
// backend (launch=gsqlite3,gsqlite3:second) a record of the second
// database that carries the zone's domain_id is answered over DNS, while
// neither the API's GET of the zone nor an AXFR shows it (issue 27). To
// the planner such a name is empty, so it planned a plain create over
// foreign data, without GATE-DNS-OVERWRITE. So before creating an rrset
// of an existing zone, site asks the zone's DNS address for that name
// and type, one query each, many in flight (askAll); whatever the server
// answers there that the API does not list is foreign data at a wanted
// name, and the change needs the gate like any other overwrite.

// hiddenFound is what the server answers at a name the plan creates.
type hiddenFound struct {
	key    rrKey
	typ    string // the type answered: the one asked, or a CNAME
	served *served
}

// hidden asks addr about every rrset b creates where the API showed no
// data, and gates each that the server answers with data the API does
// not list. It returns a note when the server could not be asked, and
// the DNS questions it sent. "" asks nothing.
func hidden(ctx context.Context, run *backends.Run, addr string, zone *model.Zone, obs *observation, b *batch) (notes []string, queries int) {
	var keys []rrKey
	for _, k := range b.fresh {
		if _, ok := dns.StringToType[k.typ]; ok {
			keys = append(keys, k) // ALIAS and the like have no DNS type to ask
		}
	}
	if addr == "" || len(keys) == 0 {
		return nil, 0
	}
	ctx, stop := run.ReadContext(ctx)
	defer stop()
	var n atomic.Int64
	found := make([]*hiddenFound, len(keys))
	err := askAll(ctx, &n, addr, keys, func(i int, in *dns.Msg) {
		found[i] = unlisted(keys[i], in, zone.Name, obs)
	})
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return []string{fmt.Sprintf("zone %s: whether the server at %s already answers at the %d names this plan creates was not checked (data its API does not list would be overwritten): %v", zone.Name, addr, len(keys), err)}, int(n.Load())
	}
	for _, f := range found {
		if f != nil {
			gateHidden(b, zone.Name, addr, f)
		}
	}
	return nil, int(n.Load())
}

// unlisted is what answer in shows at k's name, of k's type or a CNAME,
// that the API did not list: nil when there is none. An answer a listed
// wildcard synthesises is the API's data, as is a CNAME a DNAME above
// the name makes.
func unlisted(k rrKey, in *dns.Msg, zone string, obs *observation) *hiddenFound {
	got := map[string]*served{}
	for _, rr := range in.Answer {
		h := rr.Header()
		t := dns.TypeToString[h.Rrtype]
		if h.Rrtype == dns.TypeDNAME {
			return nil
		}
		if !strings.EqualFold(h.Name, k.name) || (t != k.typ && t != "CNAME") {
			continue
		}
		s := got[t]
		if s == nil {
			s = &served{ttl: h.Ttl}
			got[t] = s
		}
		s.values = append(s.values, rdata(rr))
	}
	for _, t := range []string{k.typ, "CNAME"} {
		s := got[t]
		if s == nil {
			continue
		}
		slices.Sort(s.values)
		if l := obs.Sets[dnsplan.NameType{Name: k.name, Type: t}]; l != nil && l.HasData() {
			continue // the API lists it: the planner has seen it
		}
		if w := coveringWildcard(obs, zone, k.name, t); w != nil && sameValues(t, s.values, sortedCopy(w.Values)) {
			continue
		}
		return &hiddenFound{key: k, typ: t, served: s}
	}
	return nil
}

// coveringWildcard is the nearest listed wildcard of type typ above name
// in zone, nil when there is none.
func coveringWildcard(obs *observation, zone, name, typ string) *dnsplan.RRset {
	for parent := name; ; {
		_, rest, ok := strings.Cut(parent, ".")
		if !ok || rest == "" || !dns.IsSubDomain(zone, rest) {
			return nil
		}
		parent = rest
		if l := obs.Sets[dnsplan.NameType{Name: "*." + parent, Type: typ}]; l != nil && l.HasData() {
			return l
		}
	}
}

// gateHidden makes the create of f's rrset an overwrite behind
// GATE-DNS-OVERWRITE, saying what the server serves there.
func gateHidden(b *batch, zone, addr string, f *hiddenFound) {
	key := dnsplan.Key(zone, f.key.name, f.key.typ)
	for i := range b.changes {
		c := &b.changes[i]
		if c.Key != key || c.Action != plan.ActionCreate {
			continue
		}
		c.Action = plan.ActionUpdate
		c.Impact = plan.ImpactOverwrite
		if !slices.Contains(c.Gates, plan.GateDNSOverwrite) {
			c.Gates = append(c.Gates, plan.GateDNSOverwrite)
		}
		what := "this name and type"
		if f.typ != f.key.typ {
			what = "a " + f.typ + " at this name"
		}
		c.Before = map[string]any{"ttl": f.served.ttl, "values": f.served.values}
		c.Reason = fmt.Sprintf("the server at %s serves %s (before), which its API does not list (another backend of the server holds it, such as a second gsqlite3, or the API's answer left it out): foreign data, written over only with GATE-DNS-OVERWRITE", addr, what)
		return
	}
}

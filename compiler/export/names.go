package export

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"cuelang.org/go/cue/ast"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// typeOrder is the order types are written at a name: the order the
// language documents them in.
var typeOrder = rdata.Types

// name is every exported RRset at one owner name.
type name struct {
	fqdn string
	// ttl is the name's TTL: the one most of its types have (the
	// smaller on a tie); ttls holds each type's own, as DNS has one per
	// RRset, and the spec writes those that differ from ttl as ttls.
	ttl     uint32
	ttls    map[string]uint32
	proxied bool                // Cloudflare proxies its records (all of them)
	values  map[string][]string // canonical values by type
}

// settle picks the name's TTL from its types' (see name.ttl).
func (n *name) settle() {
	count := map[uint32]int{}
	for _, ttl := range n.ttls {
		count[ttl]++
	}
	most := 0
	for _, ttl := range slices.Sorted(maps.Keys(count)) {
		if count[ttl] > most {
			n.ttl, most = ttl, count[ttl]
		}
	}
}

// Check reports why the language cannot say rs, or nil when Render can
// write it: its type must be one the language has (not SOA, AFSDB, ...),
// its TTL 1 to 2^31-1, its values valid for the type, TXT and CAA strings
// UTF-8 (all a CUE string holds), and a CNAME single. A backend that
// adopts exported records (marks them as the tenant's) leaves out what
// Check refuses, before it marks anything: a marked RRset missing from the
// spec would be deleted by the next apply.
func Check(rs model.RRset) error {
	_, err := canonicalValues(rs)
	return err
}

// canonicalValues returns rs's values in canonical form, or why the
// language cannot say rs.
func canonicalValues(rs model.RRset) ([]string, error) {
	typ := strings.ToUpper(rs.Type)
	if !rdata.IsType(typ) {
		return nil, fmt.Errorf("%s %s: the tenant language has no %s records (it has %s)", rs.Name, rs.Type, rs.Type, strings.Join(typeOrder, ", "))
	}
	if err := rdata.TTL(int64(rs.TTL)); err != nil {
		return nil, fmt.Errorf("%s %s: %w", rs.Name, typ, err)
	}
	values := make([]string, len(rs.Values))
	for i, v := range rs.Values {
		c, err := rdata.Normalize(typ, v)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", rs.Name, typ, err)
		}
		values[i] = c
	}
	if !utf8Strings(typ, values) {
		return nil, fmt.Errorf("%s %s: holds data that is not UTF-8, which a CUE string cannot carry", rs.Name, typ)
	}
	if rs.Proxied && typ != "A" && typ != "AAAA" && typ != "CNAME" && typ != "ALIAS" {
		return nil, fmt.Errorf("%s %s: is proxied, which the language says only of A, AAAA, CNAME and ALIAS", rs.Name, typ)
	}
	if (typ == "CNAME" || typ == "DNAME" || typ == "ALIAS") && len(values) > 1 {
		return nil, fmt.Errorf("%s has %d %s records; a name has at most one", rs.Name, len(values), typ)
	}
	return values, nil
}

// ProblemKind says which of the language's rules an RRset breaks.
type ProblemKind int

const (
	// Unsayable: the language cannot say the RRset itself (Check's
	// reason: its type, TTL, values).
	Unsayable ProblemKind = iota
	// Outside: the RRset's name lies outside the zone.
	Outside
	// Twice: the same type twice at one name.
	Twice
	// Proxied: proxied where the name's other types are not, or the
	// other way round.
	Proxied
)

// Problem is why Render cannot write one RRset of a Zone.
type Problem struct {
	Kind  ProblemKind
	RRset int // its index in Zone.RRsets
	// Clash is the index of the RRset it cannot stand beside (Twice,
	// Proxied), -1 when none.
	Clash int
	Err   error // what is wrong, without advice: the caller knows what to do
}

// Problems lists every RRset of z that Render cannot write, in the
// order of z.RRsets, so that a caller holding where each came from (an
// importer, with file and line) can name them all at once; Render
// itself stops at the first.
func Problems(z Zone) []Problem {
	_, problems := group(z)
	return problems
}

// collect groups z's RRsets by name, in DNS order.
func collect(z Zone) ([]*name, error) {
	names, problems := group(z)
	if len(problems) == 0 {
		return names, nil
	}
	p := problems[0]
	switch p.Kind {
	case Unsayable:
		return nil, fmt.Errorf("export: %w; leave it out (see export.Check) or fix the live zone, then export again", p.Err)
	case Proxied:
		return nil, fmt.Errorf("export: %w; make them agree in the live zone, then export again", p.Err)
	case Twice:
		return nil, fmt.Errorf("export: %w; pass each RRset once", p.Err)
	}
	return nil, fmt.Errorf("export: %w; pass only the zone's own RRsets", p.Err)
}

// group groups z's RRsets by name, in DNS order, and lists those the
// language cannot say.
func group(z Zone) ([]*name, []Problem) {
	byName := map[string]*name{}
	first := map[string]int{} // name, or name and type: the RRset that set it
	var problems []Problem
	for i, rs := range z.RRsets {
		if len(rs.Values) == 0 {
			continue // a comment-only RRset holds no records
		}
		problem := func(kind ProblemKind, clash int, format string, args ...any) {
			problems = append(problems, Problem{Kind: kind, RRset: i, Clash: clash, Err: fmt.Errorf(format, args...)})
		}
		if !dnsname.IsSubdomain(rs.Name, z.Zone) {
			problem(Outside, -1, "%s %s lies outside zone %s", rs.Name, rs.Type, z.Zone)
			continue
		}
		values, err := canonicalValues(rs)
		if err != nil {
			problems = append(problems, Problem{Kind: Unsayable, RRset: i, Clash: -1, Err: err})
			continue
		}
		typ := strings.ToUpper(rs.Type)
		n := byName[rs.Name]
		if n == nil {
			n = &name{fqdn: rs.Name, proxied: rs.Proxied, ttls: map[string]uint32{}, values: map[string][]string{}}
			byName[rs.Name] = n
			first[rs.Name] = i
		}
		_, dup := n.values[typ]
		switch at := first[rs.Name]; {
		case rs.Proxied != n.proxied:
			problem(Proxied, at, "%s is proxied for some types and not for others, but the language says proxied once per name", rs.Name)
			continue
		case dup:
			problem(Twice, first[rs.Name+" "+typ], "two %s RRsets at %s", typ, rs.Name)
			continue
		}
		first[rs.Name+" "+typ] = i
		n.values[typ] = values
		n.ttls[typ] = rs.TTL
	}
	names := make([]*name, 0, len(byName))
	for _, n := range byName {
		n.settle()
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b *name) int { return dnsOrder(a.fqdn, b.fqdn) })
	return names, problems
}

// utf8Strings reports whether the strings inside TXT, CAA, NAPTR, URI and HINFO values are
// UTF-8, which is all a CUE string can hold. Other types are ASCII.
func utf8Strings(typ string, values []string) bool {
	for _, v := range values {
		var s string
		switch typ {
		case "TXT":
			s, _ = rdata.ParseTXT(v)
		case "CAA":
			_, _, s, _ = rdata.ParseCAA(v)
		case "NAPTR":
			_, _, fl, svc, re, _, _ := rdata.ParseNAPTR(v)
			s = fl + svc + re
		case "URI":
			_, _, s, _ = rdata.ParseURI(v)
		case "HINFO":
			cpu, os, _ := rdata.ParseHINFO(v)
			s = cpu + os
		}
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// dnsOrder compares canonical names label by label from the right, so a
// name sorts right after its parent and beside its siblings (RFC 4034
// §6.1, on presentation form).
func dnsOrder(a, b string) int {
	la := strings.Split(strings.TrimSuffix(a, "."), ".")
	lb := strings.Split(strings.TrimSuffix(b, "."), ".")
	for i, j := len(la)-1, len(lb)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if c := strings.Compare(la[i], lb[j]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(la), len(lb))
}

// expr writes the name's value: proxied: true, or its ttl when it
// differs from the zone's, then its types in the language's order, then
// ttls for the types whose TTL differs from the name's.
func (n *name) expr(zoneTTL uint32) ast.Expr {
	var fields, ttls []any
	switch {
	case n.proxied:
		// Cloudflare's own TTL, which the language does not let a
		// proxied name set.
		fields = append(fields, ast.NewIdent("proxied"), ast.NewIdent("true"))
	case n.ttl != zoneTTL:
		fields = append(fields, ast.NewIdent("ttl"), number(int(n.ttl)))
	}
	for _, typ := range typeOrder {
		values, ok := n.values[typ]
		if !ok {
			continue
		}
		fields = append(fields, ast.NewIdent(typ), typeExpr(typ, values))
		if ttl := n.ttls[typ]; ttl != n.ttl && !n.proxied {
			ttls = append(ttls, ast.NewIdent(typ), number(int(ttl)))
		}
	}
	if len(ttls) > 0 {
		fields = append(fields, ast.NewIdent("ttls"), ast.NewStruct(ttls...))
	}
	return ast.NewStruct(fields...)
}

// typeExpr writes the canonical values of one type in the language's
// shape for it, sorted the way a reader expects (addresses numerically,
// MX and SRV by priority). The values have been through rdata.Normalize,
// so parsing them cannot fail.
func typeExpr(typ string, values []string) ast.Expr {
	if fields := rdata.StructFields(typ); fields != nil {
		return structsExpr(typ, fields, values)
	}
	switch typ {
	case "CNAME", "DNAME", "ALIAS":
		return ast.NewString(values[0])
	case "A", "AAAA":
		addrs := make([]netip.Addr, len(values))
		for i, v := range values {
			addrs[i] = netip.MustParseAddr(v)
		}
		slices.SortFunc(addrs, netip.Addr.Compare)
		return list(len(addrs), func(i int) ast.Expr { return ast.NewString(addrs[i].String()) })
	case "NS", "PTR", "OPENPGPKEY", "DHCID", "LOC":
		slices.Sort(values)
		return list(len(values), func(i int) ast.Expr { return ast.NewString(values[i]) })
	case "TXT":
		slices.Sort(values)
		return list(len(values), func(i int) ast.Expr { return txtExpr(values[i]) })
	case "MX":
		type mx struct {
			prio int
			host string
		}
		rs := make([]mx, len(values))
		for i, v := range values {
			rs[i].prio, rs[i].host, _ = rdata.ParseMX(v)
		}
		slices.SortFunc(rs, func(a, b mx) int { return cmp.Or(cmp.Compare(a.prio, b.prio), strings.Compare(a.host, b.host)) })
		return list(len(rs), func(i int) ast.Expr {
			return ast.NewStruct("priority", number(rs[i].prio), "host", ast.NewString(rs[i].host))
		})
	case "SRV":
		type srv struct {
			prio, weight, port int
			target             string
		}
		rs := make([]srv, len(values))
		for i, v := range values {
			r := &rs[i]
			r.prio, r.weight, r.port, r.target, _ = rdata.ParseSRV(v)
		}
		slices.SortFunc(rs, func(a, b srv) int {
			return cmp.Or(cmp.Compare(a.prio, b.prio), cmp.Compare(a.weight, b.weight), cmp.Compare(a.port, b.port), strings.Compare(a.target, b.target))
		})
		return list(len(rs), func(i int) ast.Expr {
			r := rs[i]
			return ast.NewStruct("priority", number(r.prio), "weight", number(r.weight), "port", number(r.port), "target", ast.NewString(r.target))
		})
	case "CAA":
		type caa struct {
			flags      int
			tag, value string
		}
		rs := make([]caa, len(values))
		for i, v := range values {
			r := &rs[i]
			r.flags, r.tag, r.value, _ = rdata.ParseCAA(v)
		}
		slices.SortFunc(rs, func(a, b caa) int {
			return cmp.Or(cmp.Compare(a.flags, b.flags), strings.Compare(a.tag, b.tag), strings.Compare(a.value, b.value))
		})
		return list(len(rs), func(i int) ast.Expr {
			r := rs[i]
			return ast.NewStruct("flags", number(r.flags), "tag", ast.NewString(r.tag), "value", ast.NewString(r.value))
		})
	}
	panic("export: typeExpr called with unsupported type " + typ) // collect lets only typeOrder through
}

// structsExpr writes the values of a struct type, each with its fields
// in the order rdata.StructFields gives, sorted field by field (numbers
// numerically, as MX and SRV are).
func structsExpr(typ string, fields []rdata.Field, values []string) ast.Expr {
	rs := make([]map[string]any, len(values))
	for i, v := range values {
		rs[i], _ = rdata.ToFields(typ, v)
	}
	slices.SortFunc(rs, func(a, b map[string]any) int {
		for _, fd := range fields {
			var c int
			if fd.Int {
				c = cmp.Compare(a[fd.Name].(int), b[fd.Name].(int))
			} else {
				c = strings.Compare(a[fd.Name].(string), b[fd.Name].(string))
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return list(len(rs), func(i int) ast.Expr {
		var kv []any
		for _, fd := range fields {
			if fd.Int {
				kv = append(kv, fd.Name, number(rs[i][fd.Name].(int)))
			} else if v := rs[i][fd.Name].(string); v != "" || !rdata.OptionalField(typ, fd.Name) {
				kv = append(kv, fd.Name, ast.NewString(v)) // the schema requires it, even empty
			}
		}
		return ast.NewStruct(kv...)
	})
}

func list(n int, elem func(i int) ast.Expr) *ast.ListLit {
	elems := make([]ast.Expr, n)
	for i := range elems {
		elems[i] = elem(i)
	}
	return ast.NewList(elems...)
}

// txtExpr writes one canonical TXT value as the language's plain string
// when site would split that string back into the same character-strings
// (every record up to 255 octets, and longer ones split at 255), and as a
// list of its strings otherwise (`"part one" "part two"`), so the spec
// wants exactly the record that is served.
func txtExpr(value string) ast.Expr {
	parts, _ := rdata.ParseTXTStrings(value)
	if joined := strings.Join(parts, ""); rdata.TXT(joined) == value {
		return ast.NewString(joined)
	}
	return list(len(parts), func(i int) ast.Expr { return ast.NewString(parts[i]) })
}

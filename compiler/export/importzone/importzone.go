// Package importzone reads the zone data other DNS tools keep, a BIND
// master file, an octoDNS YamlProvider zone file and DNSControl's
// `dnscontrol print-ir` JSON, and writes it as a tenant spec, the way
// `site import` does. Each source has a file of its own that turns it
// into records as the source says them (owner, type, TTL, value in
// presentation form, and where it was written); the rest is common:
// records become the RRsets of export.Zone, and export.RenderZones, the
// renderer site export uses, writes the spec, so both commands write
// the same language the same way.
//
// What the language cannot say is refused, never dropped: every such
// record is listed with its file and line (or its place in the JSON),
// together, and nothing is written. Two things are left out on purpose,
// by site's own rules, and said in the spec as comments: the SOA (the
// serial and primary are always the server's; the comment gives the
// soa fields that would set the rest) and the apex NS (they come with
// the zone on its provider, and site touches them only when a spec
// names them; the comment gives the line that would).
package importzone

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// Formats are the sources Import reads, as site import names them.
var Formats = []string{"bind", "octodns", "dnscontrol"}

// Request is one import, as a user gave it.
type Request struct {
	Format string // one of Formats
	File   string // the source's name, for messages
	Src    []byte // the source's content
	// Zone picks one zone of the source; "" takes all of them (for a
	// BIND file, whose $ORIGIN lines may not name it, the zone of its
	// SOA; for an octoDNS file, the file's name less .yaml).
	Zone     string
	Tenant   string // the tenant the records belong to
	Provider string // the provider's name in site.cue
}

// record is one record as its source wrote it.
type record struct {
	pos   string // file:line, or where in the JSON
	name  string // canonical owner
	typ   string // upper case
	ttl   uint32
	value string // presentation form
}

// zone is one zone's records as its source wrote them.
type zone struct {
	name    string // canonical
	records []record
	notes   []string // what the parser has to say about it
}

// Problems is every reason an import was refused, one line each: what
// could not be read, then what the language cannot say.
type Problems []string

func (p Problems) Error() string {
	what := fmt.Sprintf("%d records cannot", len(p))
	if len(p) == 1 {
		what = "1 record cannot"
	}
	return fmt.Sprintf("%s be written in site's language; nothing was written:\n  %s", what, strings.Join(p, "\n  "))
}

// Import reads req.Src and returns the tenant spec that says its
// zones' records, vetted as site vet would vet it with site.cue
// granting the tenant those zones and the provider, and the zones'
// names (without the trailing dot, as site.cue grants them). A source
// site cannot say in full is refused with Problems.
func Import(req Request) (spec []byte, zones []string, err error) {
	spec, out, err := importZones(req)
	if err != nil {
		return nil, nil, err
	}
	for _, z := range out {
		zones = append(zones, strings.TrimSuffix(z.Zone, "."))
	}
	return spec, zones, nil
}

// importZones is Import, the zones as rendered.
func importZones(req Request) ([]byte, []export.Zone, error) {
	if err := compiler.CheckTenantName(req.Tenant); err != nil {
		return nil, nil, fmt.Errorf("--tenant: %w", err)
	}
	if req.Provider == "" {
		return nil, nil, fmt.Errorf("--provider is required: the name site.cue gives the provider the zone will live on")
	}
	want := ""
	if req.Zone != "" {
		z, err := dnsname.Canonical(strings.TrimSuffix(req.Zone, ".")+".", "")
		if err != nil {
			return nil, nil, fmt.Errorf("--zone: %w", err)
		}
		want = z
	}
	var zones []zone
	var err error
	switch req.Format {
	case "bind":
		zones, err = parseBIND(req.File, req.Src, want)
	case "octodns":
		zones, err = parseOctoDNS(req.File, req.Src, want)
	case "dnscontrol":
		zones, err = parseDNSControl(req.File, req.Src)
	default:
		return nil, nil, fmt.Errorf("site import cannot read %q: name one of %s", req.Format, strings.Join(Formats, ", "))
	}
	// A parser lists the records it could not read as Problems and
	// returns the rest, so that what they break is listed too.
	var problems Problems
	if p, ok := err.(Problems); ok {
		problems, err = p, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if zones, err = pick(zones, want, req.File); err != nil {
		return nil, nil, err
	}
	var out []export.Zone
	for _, z := range zones {
		ez, p := rrsets(z, req)
		problems = append(problems, p...)
		out = append(out, ez)
	}
	if len(problems) > 0 {
		return nil, nil, problems
	}
	src, err := export.RenderZones(out)
	if err != nil {
		return nil, nil, err
	}
	if err := vet(req, out, src); err != nil {
		return nil, nil, err
	}
	return src, out, nil
}

// pick returns the zone want names, or every zone when want is "".
func pick(zones []zone, want, file string) ([]zone, error) {
	if len(zones) == 0 {
		return nil, fmt.Errorf("%s holds no zone", file)
	}
	if want == "" {
		return zones, nil
	}
	var names []string
	for _, z := range zones {
		if z.name == want {
			return []zone{z}, nil
		}
		names = append(names, strings.TrimSuffix(z.name, "."))
	}
	return nil, fmt.Errorf("--zone %s: %s holds no such zone; it holds %s", strings.TrimSuffix(want, "."), file, strings.Join(names, ", "))
}

// rrsets groups z's records into RRsets (values in the order written,
// a record written twice once) and lists what the language cannot say:
// what export.Problems finds, and an RRset whose records have
// different TTLs. The SOA and the apex NS become notes.
func rrsets(z zone, req Request) (export.Zone, Problems) {
	ez := export.Zone{Tenant: req.Tenant, Zone: z.name, Provider: model.Provider{Name: req.Provider},
		Notes: []string{fmt.Sprintf("Imported from %s (%s) by site import.", filepath.Base(req.File), req.Format)}}
	ez.Notes = append(ez.Notes, z.notes...)
	var problems Problems
	var where [][]string // positions of each RRset's records
	index := map[string]int{}
	var soa, apexNS []record
	for _, r := range z.records {
		switch {
		case r.typ == "SOA" && r.name == z.name:
			soa = append(soa, r)
			continue
		case r.typ == "NS" && r.name == z.name:
			apexNS = append(apexNS, r)
			continue
		}
		key := r.name + " " + r.typ
		i, ok := index[key]
		if !ok {
			i = len(ez.RRsets)
			index[key] = i
			ez.RRsets = append(ez.RRsets, model.RRset{Name: r.name, Type: r.typ, TTL: r.ttl})
			where = append(where, nil)
		}
		rs := &ez.RRsets[i]
		if r.ttl != rs.TTL {
			problems = append(problems, fmt.Sprintf("%s: %s %s has TTL %d here and %d at %s; the records of one RRset share one TTL: give them one in the source",
				r.pos, r.name, r.typ, r.ttl, rs.TTL, where[i][0]))
			continue
		}
		if !slices.ContainsFunc(rs.Values, func(v string) bool { return same(r.typ, v, r.value) }) {
			rs.Values = append(rs.Values, r.value)
		}
		where[i] = append(where[i], r.pos)
	}
	ez.Notes = append(ez.Notes, soaNote(soa)...)
	ez.Notes = append(ez.Notes, apexNSNote(z.name, apexNS)...)
	for _, p := range export.Problems(ez) {
		at := where[p.RRset]
		msg := fmt.Sprintf("%s: %v", at[0], p.Err)
		switch p.Kind {
		case export.Outside:
			msg += "; import it with its own zone"
		case export.Unsayable:
			if len(at) > 1 {
				msg += fmt.Sprintf(" (records at %s)", strings.Join(at, ", "))
			}
			msg += "; site cannot write it: remove it from the source, or leave the name where it is served now"
		}
		problems = append(problems, msg)
	}
	return ez, problems
}

// same reports whether two values of typ are one record.
func same(typ, a, b string) bool {
	ca, errA := rdata.Normalize(typ, a)
	cb, errB := rdata.Normalize(typ, b)
	return errA == nil && errB == nil && ca == cb
}

// soaNote says the SOA was left out, and how to set what site lets a
// spec set of it.
func soaNote(soa []record) []string {
	if len(soa) == 0 {
		return nil
	}
	r := soa[0]
	s, err := rdata.ParseSOA(r.value)
	if err != nil {
		return []string{fmt.Sprintf("Left out: the SOA (%s): the server keeps its own.", r.value)}
	}
	return []string{
		fmt.Sprintf("Left out: the SOA (TTL %d, %s): its serial and primary name server are always the server's.", r.ttl, r.value),
		"To set the rest as the source has it, add to this zone:",
		fmt.Sprintf("  soa: {mbox: %q, refresh: %d, retry: %d, expire: %d, minimum: %d}", s.RName, s.Refresh, s.Retry, s.Expire, s.Minimum),
	}
}

// apexNSNote says the apex NS were left out, and the line that would
// manage them.
func apexNSNote(apex string, ns []record) []string {
	if len(ns) == 0 {
		return nil
	}
	var hosts []string
	for _, r := range ns {
		h := fmt.Sprintf("%q", r.value)
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	return []string{
		fmt.Sprintf("Left out: the apex NS (TTL %d): they come with the zone on its provider, and site", ns[0].ttl),
		"touches them only when a spec names them. To manage them as the source has them, add:",
		fmt.Sprintf("  \"@\": NS: [%s]", strings.Join(hosts, ", ")),
	}
}

// vet checks src as site vet would, with a site.cue that declares
// req.Provider (as a PowerDNS server: the spec names it only) and grants
// the tenant the zones, so that what import prints passes site vet.
func vet(req Request, zones []export.Zone, src []byte) error {
	var domains []string
	for _, z := range zones {
		domains = append(domains, fmt.Sprintf("%q", strings.TrimSuffix(z.Zone, ".")))
	}
	site := fmt.Sprintf("package site\n\nproviders: %q: powerdns: {url: \"http://127.0.0.1:8081\", api_key: env: \"PDNS_API_KEY\"}\n"+
		"tenants: %q: {domains: [%s], providers: [%q], limits: zones: %d}\n",
		req.Provider, req.Tenant, strings.Join(domains, ", "), req.Provider, max(len(zones), 100))
	if err := export.Vet(compiler.ConfigName, []byte(site), req.Tenant+".cue", src); err != nil {
		return errors.Join(fmt.Errorf("site vet refuses the imported spec, so nothing was written (fix the source, then import again)"), err)
	}
	return nil
}

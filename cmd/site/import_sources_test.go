package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
	"go.yaml.in/yaml/v3"
)

// The import round trips' expected records, read from the octoDNS and
// DNSControl fixtures by the test itself, from those tools' documented
// schemas, and never through site's importer: each value is written in
// presentation form from its fields and parsed by miekg/dns.

// octoFieldOrder are the fields of octoDNS's struct values in the order
// of the type's presentation form; a leading " quotes the field.
var octoFieldOrder = map[string][]string{
	"MX":    {"preference", "exchange"},
	"SRV":   {"priority", "weight", "port", "target"},
	"CAA":   {"flags", "tag", `"value`},
	"NAPTR": {"order", "preference", `"flags`, `"service`, `"regexp`, "replacement"},
	"SSHFP": {"algorithm", "fingerprint_type", "fingerprint"},
	"TLSA":  {"certificate_usage", "selector", "matching_type", "certificate_association_data"},
	"DS":    {"key_tag", "algorithm", "digest_type", "digest"},
	"URI":   {"priority", "weight", `"target`},
	"LOC": {"lat_degrees", "lat_minutes", "lat_seconds", "lat_direction", "long_degrees", "long_minutes", "long_seconds", "long_direction",
		"altitude", "size", "precision_horz", "precision_vert"},
}

// octoDNSRecords is every record of the octoDNS zone file at path but
// the apex NS, as wire: {name: record | [records]}, each {type, ttl
// (octoDNS's default 3600), value | values}.
func octoDNSRecords(t *testing.T, path, zone string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for name, v := range doc {
		recs, ok := v.([]any)
		if !ok {
			recs = []any{v}
		}
		for _, r := range recs {
			rec := r.(map[string]any)
			typ, ttl := rec["type"].(string), 3600
			if n, ok := rec["ttl"].(int); ok {
				ttl = n
			}
			values, ok := rec["values"].([]any)
			if !ok {
				values = []any{rec["value"]}
			}
			for _, val := range values {
				rr := parseRR(t, octoOwner(name, zone), ttl, typ, octoRData(t, typ, val))
				if keep(rr, zone) {
					out = append(out, wire(t, rr))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func octoOwner(name, zone string) string {
	if name == "" {
		return zone
	}
	return name + "." + zone
}

// octoRData is one octoDNS value of typ in presentation form. A TXT is
// one text (octoDNS escapes ; as \;, which a quoted zone-file string
// reads as ;), split into strings of 255 by miekg/dns as by octoDNS.
func octoRData(t *testing.T, typ string, val any) string {
	t.Helper()
	if s, ok := val.(string); ok {
		if typ == "TXT" {
			return `"` + s + `"`
		}
		return s
	}
	fields, ok := octoFieldOrder[typ]
	if !ok {
		t.Fatalf("octoDNS %s value %v: the test knows no fields for it", typ, val)
	}
	m := val.(map[string]any)
	var parts []string
	for _, f := range fields {
		quote := strings.HasPrefix(f, `"`)
		v, ok := m[strings.TrimPrefix(f, `"`)]
		if !ok {
			t.Fatalf("octoDNS %s value %v has no %s", typ, val, f)
		}
		s := fmt.Sprint(v)
		switch {
		case quote:
			s = fmt.Sprintf("%q", s)
		case typ == "LOC" && (f == "altitude" || f == "size" || strings.HasPrefix(f, "precision")):
			s += "m"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// irFieldOrder are the print-ir fields of DNSControl's record types in
// the order of the type's presentation form, target its own field; a
// leading " quotes the field, a missing one is 0 or "" (print-ir leaves
// zero values out).
var irFieldOrder = map[string][]string{
	"A": {"target"}, "AAAA": {"target"}, "CNAME": {"target"}, "NS": {"target"}, "PTR": {"target"},
	"TXT":    {`"target`},
	"MX":     {"mxpreference", "target"},
	"SRV":    {"srvpriority", "srvweight", "srvport", "target"},
	"CAA":    {"caaflag", "caatag", `"target`},
	"NAPTR":  {"naptrorder", "naptrpreference", `"naptrflags`, `"naptrservice`, `"naptrregexp`, "target"},
	"SSHFP":  {"sshfpalgorithm", "sshfpfingerprint", "target"},
	"TLSA":   {"tlsausage", "tlsaselector", "tlsamatchingtype", "target"},
	"SMIMEA": {"smimeausage", "smimeaselector", "smimeamatchingtype", "target"},
	"DS":     {"dskeytag", "dsalgorithm", "dsdigesttype", "dsdigest"},
}

// printIRRecords is every record of zone in the print-ir JSON at path
// but the apex NS, as wire: names relative ("@" the apex), TTL 300
// when left out (DNSControl's default), LOC in RFC 1876's wire values
// (loc* fields), RP in its rdata (miekg/dns's field names).
func printIRRecords(t *testing.T, path, zone string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ir struct {
		Domains []struct {
			Name    string           `json:"name"`
			Records []map[string]any `json:"records"`
		} `json:"domains"`
	}
	if err := json.Unmarshal(src, &ir); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range ir.Domains {
		if d.Name+"." != zone {
			continue
		}
		for _, r := range d.Records {
			rr := irRR(t, r, zone)
			if keep(rr, zone) {
				out = append(out, wire(t, rr))
			}
		}
	}
	slices.Sort(out)
	return out
}

// irRR is one print-ir record as a dns.RR.
func irRR(t *testing.T, r map[string]any, zone string) dns.RR {
	t.Helper()
	typ, name := r["type"].(string), r["name"].(string)
	owner := zone
	if name != "@" {
		owner = name + "." + zone
	}
	ttl := 300
	if n, ok := r["ttl"].(float64); ok {
		ttl = int(n)
	}
	num := func(k string) float64 { n, _ := r[k].(float64); return n }
	switch typ {
	case "LOC":
		return &dns.LOC{Hdr: dns.RR_Header{Name: owner, Rrtype: dns.TypeLOC, Class: dns.ClassINET, Ttl: uint32(ttl)},
			Version: uint8(num("locversion")), Size: uint8(num("locsize")), HorizPre: uint8(num("lochorizpre")), VertPre: uint8(num("locvertpre")),
			Latitude: uint32(num("loclatitude")), Longitude: uint32(num("loclongitude")), Altitude: uint32(num("localtitude"))}
	case "RP":
		rd := r["rdata"].(map[string]any)
		return parseRR(t, owner, ttl, typ, fmt.Sprintf("%s %s", rd["Mbox"], rd["Txt"]))
	}
	fields, ok := irFieldOrder[typ]
	if !ok {
		t.Fatalf("print-ir %s record %v: the test knows no fields for it", typ, r)
	}
	var parts []string
	for _, f := range fields {
		k := strings.TrimPrefix(f, `"`)
		var s string
		switch v := r[k].(type) {
		case nil:
			if k != "target" && !strings.HasPrefix(f, `"`) && !strings.HasSuffix(k, "digest") {
				s = "0"
			}
		case float64:
			s = fmt.Sprint(int(v))
		default:
			s = fmt.Sprint(v)
		}
		if strings.HasPrefix(f, `"`) {
			s = fmt.Sprintf("%q", s)
		}
		parts = append(parts, s)
	}
	return parseRR(t, owner, ttl, typ, strings.Join(parts, " "))
}

// parseRR is one record from its presentation form, by miekg/dns.
func parseRR(t *testing.T, owner string, ttl int, typ, rdata string) dns.RR {
	t.Helper()
	rr, err := dns.NewRR(fmt.Sprintf("%s %d IN %s %s", owner, ttl, typ, rdata))
	if err != nil || rr == nil {
		t.Fatalf("%s %s %s: %v", owner, typ, rdata, err)
	}
	return rr
}

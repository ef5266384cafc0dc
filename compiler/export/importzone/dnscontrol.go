package importzone

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/rdata"
)

// dnsControlDefaultTTL is the TTL DNSControl gives a record without
// one (its models.DefaultTTL); print-ir leaves a zero TTL out.
const dnsControlDefaultTTL = 300

// irFile is the part of `dnscontrol print-ir`'s JSON an import reads:
// every domain's records, in DNSControl's RecordConfig fields.
type irFile struct {
	Domains []irDomain `json:"domains"`
}

type irDomain struct {
	Name        string            `json:"name"`
	Records     []irRecord        `json:"records"`
	Unmanaged   []json.RawMessage `json:"unmanaged"`
	KeepUnknown bool              `json:"keepunknown"`
}

type irRecord struct {
	Type       string            `json:"type"`
	Name       string            `json:"name"`
	Target     string            `json:"target"`
	TTL        uint32            `json:"ttl"`
	Meta       map[string]string `json:"meta"`
	TxtStrings []string          `json:"txtstrings"` // DNSControl 3's TXT

	MxPreference     int    `json:"mxpreference"`
	SrvPriority      int    `json:"srvpriority"`
	SrvWeight        int    `json:"srvweight"`
	SrvPort          int    `json:"srvport"`
	CaaTag           string `json:"caatag"`
	CaaFlag          int    `json:"caaflag"`
	DsKeyTag         int    `json:"dskeytag"`
	DsAlgorithm      int    `json:"dsalgorithm"`
	DsDigestType     int    `json:"dsdigesttype"`
	DsDigest         string `json:"dsdigest"`
	NaptrOrder       int    `json:"naptrorder"`
	NaptrPreference  int    `json:"naptrpreference"`
	NaptrFlags       string `json:"naptrflags"`
	NaptrService     string `json:"naptrservice"`
	NaptrRegexp      string `json:"naptrregexp"`
	SshfpAlgorithm   int    `json:"sshfpalgorithm"`
	SshfpFingerprint int    `json:"sshfpfingerprint"`
	SvcPriority      int    `json:"svcpriority"`
	SvcParams        string `json:"svcparams"`
	TlsaUsage        int    `json:"tlsausage"`
	TlsaSelector     int    `json:"tlsaselector"`
	TlsaMatchingType int    `json:"tlsamatchingtype"`

	irRecent // LOC, SMIMEA, HINFO, RP, URI, CERT: see dnscontrol_types.go
}

// parseDNSControl reads `dnscontrol print-ir` output: one zone per
// domain, names relative to it ("@" the apex), targets absolute.
// A record's meta a provider reads (cloudflare_proxy) is refused when
// it changes what is served; the rest, and the domain's IGNORE and
// NO_PURGE, are said in the zone's notes.
func parseDNSControl(file string, src []byte) ([]zone, error) {
	var ir irFile
	if err := json.Unmarshal(src, &ir); err != nil {
		return nil, fmt.Errorf("%s: %w; give the output of dnscontrol print-ir", file, err)
	}
	var zones []zone
	var problems Problems
	for _, d := range ir.Domains {
		name, err := dnsname.Canonical(strings.TrimSuffix(d.Name, ".")+".", "")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: domain %q: %v", file, d.Name, err))
			continue
		}
		z := zone{name: name}
		if len(d.Unmanaged) > 0 {
			z.notes = append(z.notes, fmt.Sprintf("DNSControl's %d IGNORE rules are not carried over: site never changes records it did not write; add ignore: entries to keep it from adopting them.", len(d.Unmanaged)))
		}
		if d.KeepUnknown {
			z.notes = append(z.notes, "DNSControl's NO_PURGE is not carried over: site never deletes records it did not write.")
		}
		for j, r := range d.Records {
			pos := fmt.Sprintf("%s: domain %s record %d", file, d.Name, j+1)
			owner, err := dnsname.Canonical(cmpOr(r.Name, "@"), name)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", pos, err))
				continue
			}
			typ := strings.ToUpper(r.Type)
			if why := irMetaRefused(r.Meta); why != "" {
				problems = append(problems, fmt.Sprintf("%s: %s %s: %s", pos, owner, typ, why))
				continue
			}
			for _, k := range slices.Sorted(maps.Keys(r.Meta)) {
				z.notes = append(z.notes, fmt.Sprintf("DNSControl metadata %s=%q of %s %s is not carried over (a provider's setting, not DNS data).", k, r.Meta[k], owner, typ))
			}
			value, err := irValue(typ, r)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s: %v", pos, owner, typ, err))
				continue
			}
			ttl := r.TTL
			if ttl == 0 {
				ttl = dnsControlDefaultTTL
			}
			z.records = append(z.records, record{pos: pos, name: owner, typ: typ, ttl: ttl, value: value})
		}
		zones = append(zones, z)
	}
	if len(problems) > 0 {
		return zones, problems
	}
	return zones, nil
}

// irMetaRefused says why a record's metadata cannot be imported, or "".
func irMetaRefused(meta map[string]string) string {
	switch v := meta["cloudflare_proxy"]; v {
	case "", "off":
		return ""
	default:
		return fmt.Sprintf("is proxied through Cloudflare (cloudflare_proxy=%s), which site says with proxied: true on a Cloudflare zone only; import it without the proxy and add proxied: true by hand", v)
	}
}

// irValue writes one DNSControl record's data in presentation form.
func irValue(typ string, r irRecord) (string, error) {
	if v, ok, err := irRecentValue(typ, r); ok {
		return v, err
	}
	n := strconv.Itoa
	switch typ {
	case "TXT":
		if len(r.TxtStrings) > 1 {
			return rdata.TXTStrings(r.TxtStrings)
		}
		if len(r.TxtStrings) == 1 {
			return rdata.TXT(r.TxtStrings[0]), nil
		}
		return rdata.TXT(r.Target), nil
	case "MX":
		return n(r.MxPreference) + " " + r.Target, nil
	case "SRV":
		return strings.Join([]string{n(r.SrvPriority), n(r.SrvWeight), n(r.SrvPort), r.Target}, " "), nil
	case "CAA":
		return rdata.CAA(r.CaaFlag, r.CaaTag, r.Target)
	case "SSHFP":
		return strings.Join([]string{n(r.SshfpAlgorithm), n(r.SshfpFingerprint), r.Target}, " "), nil
	case "TLSA":
		return strings.Join([]string{n(r.TlsaUsage), n(r.TlsaSelector), n(r.TlsaMatchingType), r.Target}, " "), nil
	case "NAPTR":
		return rdata.NAPTR(r.NaptrOrder, r.NaptrPreference, r.NaptrFlags, r.NaptrService, r.NaptrRegexp, r.Target)
	case "DS":
		return strings.Join([]string{n(r.DsKeyTag), n(r.DsAlgorithm), n(r.DsDigestType), r.DsDigest}, " "), nil
	case "SVCB", "HTTPS":
		return rdata.SVCB(typ, r.SvcPriority, r.Target, r.SvcParams)
	}
	if !rdata.IsType(typ) {
		// export.Problems refuses the record by its type.
		return "(" + typ + " value)", nil
	}
	return r.Target, nil
}

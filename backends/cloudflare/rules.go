package cloudflare

import (
	"time"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rules"
)

// Rules is where Cloudflare's API takes less than DNS does, from its
// documentation and published OpenAPI schema (cloudflare/api-schemas).
// vet checks a Cloudflare zone's records against it at the spec's
// positions (the provider table hands it to the compiler), and
// checkLimits again before the first write, so a refused value never
// stops a change half-way.
var Rules = &rules.Rules{
	Kind:    "cloudflare",
	Name:    "Cloudflare",
	Instead: "serve this zone from PowerDNS",
	// Its documented list, and ALIAS, which this backend writes as the
	// CNAME Cloudflare flattens at the apex. It has no DNAME, DHCID,
	// HINFO or RP.
	Types: []string{"A", "AAAA", "CAA", "CERT", "CNAME", "DS", "HTTPS", "LOC", "MX", "NAPTR", "NS",
		"OPENPGPKEY", "PTR", "SMIMEA", "SRV", "SSHFP", "SVCB", "TLSA", "TXT", "URI", "ALIAS"},
	// 1 is "automatic"; 30 is taken on Enterprise plans only, which
	// site does not assume.
	TTL: &rules.TTLRange{Auto: 1, Min: 60, Max: 86400},
	ApexOnly: []rules.ApexOnly{{Type: "ALIAS",
		Why: "an ALIAS is a flattened CNAME at the apex only", Below: "below the apex write CNAME"}},
	// An SRV target is a hostname in its schema, so the root "." (RFC
	// 2782's "service not available here") is refused.
	Values: []rules.ValueRule{{Type: "SRV", Field: "target",
		Refused: map[string]string{".": "(no such service)", "": "(empty)"},
		Why:     "whose API takes only a hostname there"}},
	// It answers for a proxied name with its own TTL and reports 1.
	Proxy: &rules.Proxy{Types: []string{"A", "AAAA", "CNAME", "ALIAS"},
		Says: "A, AAAA and CNAME (and ALIAS, its CNAME at the apex)", TTL: 1, TTLSays: "automatic"},
	// The ranges of its zone DNS settings; the mname there names only a
	// server for outgoing transfers, not the primary.
	SOA: &rules.SOARules{
		Ranges: map[string]rules.Range{"refresh": {Min: 600, Max: 86400}, "retry": {Min: 600, Max: 86400},
			"expire": {Min: 86400, Max: 2419200}, "minimum": {Min: 60, Max: 86400}},
		Primary: "names its own name servers as a zone's SOA primary",
	},
	// Its documented limit, 1,200 requests per five minutes per token
	// (its API limits page); past it every call is refused for five
	// minutes. A provider whose site.cue entry sets no rate has it.
	Rate: &model.Rate{Requests: 1200, Per: 5 * time.Minute},
	// It marks each record: adopting the records the spec wants would
	// mark the kept ones too.
	IgnoreValue: "an ignore rule with a value is for PowerDNS zones; on Cloudflare it would mark the records it keeps as the tenant's",
}

package rdata

import "fmt"

// cloudflareTypes are the record types Cloudflare's API serves, of
// Types: its documented list (A, AAAA, CAA, CERT, CNAME, DNSKEY, DS,
// HTTPS, LOC, MX, NAPTR, NS, OPENPGPKEY, PTR, SMIMEA, SRV, SSHFP, SVCB,
// TLSA, TXT, URI), and ALIAS, which the Cloudflare backend writes as the
// CNAME Cloudflare flattens at the apex. It has no DNAME, DHCID, HINFO
// or RP: vet refuses them in a Cloudflare zone, naming the type.
var cloudflareTypes = map[string]bool{
	"A": true, "AAAA": true, "CAA": true, "CERT": true, "CNAME": true, "DS": true, "HTTPS": true,
	"LOC": true, "MX": true, "NAPTR": true, "NS": true, "OPENPGPKEY": true, "PTR": true, "SMIMEA": true,
	"SRV": true, "SSHFP": true, "SVCB": true, "TLSA": true, "TXT": true, "URI": true, "ALIAS": true,
}

// CloudflareServes reports whether Cloudflare serves records of typ.
func CloudflareServes(typ string) bool { return cloudflareTypes[typ] }

// Cloudflare's API takes narrower values than DNS does (its published
// OpenAPI schema, cloudflare/api-schemas). The compiler checks them for
// zones served by Cloudflare, at the spec's positions, and the
// Cloudflare backend again before its first write, so a refused value
// never stops a change half-way.
const (
	// CloudflareAutoTTL is the TTL that means "automatic".
	CloudflareAutoTTL = 1
	// CloudflareMinTTL and CloudflareMaxTTL bound every other TTL (30 is
	// taken on Enterprise plans only, which site does not assume).
	CloudflareMinTTL = 60
	CloudflareMaxTTL = 86400
)

// CloudflareTTL checks a TTL against Cloudflare's range.
func CloudflareTTL(n int64) error {
	if n != CloudflareAutoTTL && (n < CloudflareMinTTL || n > CloudflareMaxTTL) {
		return fmt.Errorf("TTL %d is outside what Cloudflare takes; use %d (automatic) or %d to %d seconds",
			n, CloudflareAutoTTL, CloudflareMinTTL, CloudflareMaxTTL)
	}
	return nil
}

// CloudflareValue checks a canonical value of type typ against what
// Cloudflare's API takes where DNS takes more: an SRV target is a
// hostname in its schema, so the root "." (RFC 2782's "service not
// available here") is refused.
func CloudflareValue(typ, value string) error {
	if typ != "SRV" {
		return nil
	}
	if _, _, _, target, err := ParseSRV(value); err == nil && target == "." {
		return fmt.Errorf("SRV target \".\" (no such service) is refused by Cloudflare, whose API takes only a hostname there; serve this zone from PowerDNS, or remove the record")
	}
	return nil
}

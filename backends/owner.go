package backends

import (
	"strings"

	"github.com/site-tools/site/compiler/visible"
)

// dnsMarkerPrefix is every DNS owner marker before the tenant's name.
const dnsMarkerPrefix = "managed by site tenant="

// DNSMarker is the owner marker DNS backends write beside the records
// site owns (a PowerDNS RRset comment, a Cloudflare record comment); it
// names the tenant. One text for every provider, so a zone moved between
// providers keeps its owners.
func DNSMarker(tenant string) string { return dnsMarkerPrefix + tenant }

// DNSMarkerOwner returns the tenant a marker text names and whether the
// text is a marker at all. The whole rest of the text is the name: a
// marker a person has added words to names no tenant, so no tenant
// deletes the record or takes it without GATE-DNS-OVERWRITE.
//
// The text is whoever wrote the comment's (by hand, another tool, any
// holder of the server's key), and plans quote the owner. A rest that
// cannot be a tenant's name comes back quoted, escaped and shortened
// (visible.Short): still no tenant's, and printed as one short line,
// not a line of its own (::error:: in a workflow log), an escape
// sequence for the terminal or a megabyte in every plan.
func DNSMarkerOwner(text string) (tenant string, ok bool) {
	tenant, ok = strings.CutPrefix(text, dnsMarkerPrefix)
	if !ok {
		return "", false
	}
	if !tenantShaped(tenant) {
		return `"` + visible.Short(tenant) + `"`, true
	}
	return tenant, true
}

// tenantShaped reports whether s has the shape of a tenant's name as
// compiler.CheckTenantName allows it: 1 to 63 lower-case letters,
// digits and '-', neither first nor last a '-'.
func tenantShaped(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// DSNote is the plan note for one DS of a signed zone, the record its
// parent must publish, in zone-file form; ds is "key-tag algorithm
// digest-type digest". Every DNS driver says it the same way.
func DSNote(zone, ds string) string {
	return "DS for the parent: " + zone + " IN DS " + visible.String(ds)
}

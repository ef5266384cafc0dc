package backends

import "strings"

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
func DNSMarkerOwner(text string) (tenant string, ok bool) {
	tenant, ok = strings.CutPrefix(text, dnsMarkerPrefix)
	if !ok {
		return "", false
	}
	return tenant, true
}

// DSNote is the plan note for one DS of a signed zone, the record its
// parent must publish, in zone-file form; ds is "key-tag algorithm
// digest-type digest". Every DNS driver says it the same way.
func DSNote(zone, ds string) string {
	return "DS for the parent: " + zone + " IN DS " + ds
}

// Package rdata validates record contents and writes them in the canonical
// presentation form PowerDNS stores and returns (CNAME, NS and MX targets
// absolute, TXT quoted, AAAA as PowerDNS normalises it; record content is
// zone-file text: https://doc.powerdns.com/authoritative/http-api/zone.html),
// and parses that form back into fields (for Cloudflare, which wants
// fields, and for export).
//
// One function per record type builds a value: A, AAAA, Host (CNAME, NS),
// Target (MX and SRV targets, where "." is the null target), MX, SRV, CAA
// and TXT; TTL checks a time to live. ParseMX, ParseSRV, ParseCAA and
// ParseTXT are their inverses: Parse(Format(x)) == x for canonical x.
// Host also serves PTR, DNAME and ALIAS; Base64 serves OPENPGPKEY and
// DHCID; LOC writes a location in the one spelling PowerDNS takes. SSHFP,
// TLSA, SVCB (and HTTPS), NAPTR, DS, URI, CERT, SMIMEA, HINFO and RP have
// the same pair,
// and the language writes them as structs: FromFields and ToFields map
// those structs, field by field as StructFields lists them, so the
// compiler, export and the Cloudflare backend share one table.
// Normalize rewrites a live value of any supported type into canonical
// form, so a backend can compare what it observed with what is wanted using
// ==.
//
// Canonical form, in short: addresses as net/netip prints them (RFC 5952
// for IPv6); host names absolute, lower case, A-labels (package dnsname);
// integers in decimal; CAA tags lower case; hex lower case; base64 padded
// without spaces; SvcParams in key order, as PowerDNS prints them; strings quoted, with `"` and `\`
// escaped by a backslash and bytes outside printable ASCII as \DDD, split
// into character-strings of at most 255 octets.
package rdata

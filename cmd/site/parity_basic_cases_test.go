package main

import (
	"fmt"
	"strconv"
	"strings"
)

// DNSControl's integration groups for the everyday types and the API's
// edge cases (its makeTests from "A" to "testByRecordSet", then CAA
// and SRV), those its filters run on POWERDNS, written as
// parity_cases_test.go writes its own: **current-domain** is ${zone}.
// Not here: RP, LOC and SMIMEA (DNSControl's PowerDNS provider does not
// claim them, so it runs none), the pager groups beyond 101 records
// (other providers only).

func tc(name string, recs ...rec) parityStep { return parityStep{name: name, records: recs} }

// emptyZone is DNSControl's tcEmptyZone(): a step that removes every
// record.
func emptyZone() parityStep { return parityStep{name: "Empty"} }

func ns(name, host string) rec { return rec{name, "NS", `"` + host + `"`, host, 0} }
func caa(name string, flags int, tag, value string) rec {
	return rec{name, "CAA", "{flags: " + itoa(flags) + ", tag: " + quote(tag) + ", value: " + quote(value) + "}",
		itoa(flags) + " " + tag + " " + quote(value), 0}
}
func srv(name string, prio, weight, port int, target string) rec {
	return rec{name, "SRV", "{priority: " + itoa(prio) + ", weight: " + itoa(weight) + ", port: " + itoa(port) + ", target: " + quote(target) + "}",
		strings.Join([]string{itoa(prio), itoa(weight), itoa(port), target}, " "), 0}
}

// downcased is r as the server serves it: names in lower case; the
// spec still writes them as r does.
func downcased(r rec) rec {
	r.rdata = strings.ToLower(r.rdata)
	return r
}

// manyA is DNSControl's manyA: n A records named by format and a number.
func manyA(prefix, ip string, n int) []rec {
	var out []rec
	for i := range n {
		out = append(out, a(prefix+pad4(i), ip))
	}
	return out
}

var parityBasicGroups = []parityGroup{
	{name: "A", steps: []parityStep{tc("Create A", a("testa", "1.1.1.1")), tc("Change A target", a("testa", "3.3.3.3"))}},
	{name: "Apex", steps: []parityStep{tc("Create A", a("@", "2.2.2.2")), tc("Change A target", a("@", "4.4.4.4"))}},
	{name: "Protocol-Wildcard", steps: []parityStep{
		tc("Create wildcard", a("*", "3.3.3.3"), a("www", "5.5.5.5")),
		tc("Delete wildcard", a("www", "5.5.5.5")),
	}},
	{name: "AAAA", steps: []parityStep{
		tc("Create AAAA", aaaa("testaaaa", "2607:f8b0:4006:820::2006")),
		tc("Change AAAA target", aaaa("testaaaa", "2607:f8b0:4006:820::2013")),
	}},
	{name: "CNAME", steps: []parityStep{
		tc("Create a CNAME", cname("testcname", "www.google.com.")),
		tc("Change CNAME target", cname("testcname", "www.yahoo.com.")),
	}},
	{name: "CNAME-short", steps: []parityStep{tc("Create a CNAME", a("foo", "1.2.3.4"), cname("testcname", "foo.${zone}."))}},
	{name: "MX", steps: []parityStep{
		tc("Create MX apex", mx("@", 5, "foo.com.")),
		tc("Change MX apex", mx("@", 5, "bar.com.")),
		tc("Create MX", mx("testmx", 5, "foo.com.")),
		tc("Change MX target", mx("testmx", 5, "bar.com.")),
		tc("Change MX p", mx("testmx", 100, "bar.com.")),
	}},
	{name: "TXT", steps: []parityStep{tc("Create TXT", txt("testtxt", "simple")), tc("Change TXT target", txt("testtxt", "changed"))}},
	{name: "ManyAtOnce", steps: []parityStep{
		tc("CreateManyAtLabel", a("www", "1.1.1.1"), a("www", "2.2.2.2"), a("www", "3.3.3.3")),
		emptyZone(),
		tc("Create an A record", a("www", "1.1.1.1")),
		tc("Add at label1", a("www", "1.1.1.1"), a("www", "2.2.2.2")),
		tc("Add at label2", a("www", "1.1.1.1"), a("www", "2.2.2.2"), a("www", "3.3.3.3")),
	}},
	{name: "manyTypesAtOnce", steps: []parityStep{
		tc("CreateManyTypesAtLabel", a("www", "1.1.1.1"), mx("testmx", 5, "foo.com."), mx("testmx", 100, "bar.com.")),
		emptyZone(),
		tc("Create an A record", a("www", "1.1.1.1")),
		tc("Add Type At Label", a("www", "1.1.1.1"), mx("testmx", 5, "foo.com.")),
		tc("Add Type At Label", a("www", "1.1.1.1"), mx("testmx", 5, "foo.com."), mx("testmx", 100, "bar.com.")),
	}},
	{name: "Attl", steps: []parityStep{
		tc("Create Arc", ttl(a("testa", "1.1.1.1"), 333)),
		tc("Change TTL", ttl(a("testa", "1.1.1.1"), 999)),
	}},
	{name: "TTL", steps: []parityStep{
		tc("Start", ttl(a("@", "8.8.8.8"), 666), a("www", "1.2.3.4"), a("www", "5.6.7.8")),
		tc("Change a ttl", ttl(a("@", "8.8.8.8"), 1000), a("www", "1.2.3.4"), a("www", "5.6.7.8")),
		tc("Change single target from set", ttl(a("@", "8.8.8.8"), 1000), a("www", "2.2.2.2"), a("www", "5.6.7.8")),
		tc("Change all ttls", ttl(a("@", "8.8.8.8"), 500), ttl(a("www", "2.2.2.2"), 400), ttl(a("www", "5.6.7.8"), 400)),
	}},
	{name: "add to label and change orig ttl", steps: []parityStep{
		tc("Setup", ttl(a("www", "5.6.7.8"), 400)),
		tc("Add at same label, new ttl", ttl(a("www", "5.6.7.8"), 700), ttl(a("www", "1.2.3.4"), 700)),
	}},
	{name: "TypeChange", steps: []parityStep{
		tc("Create A", a("foo", "1.2.3.4")),
		tc("Change to MX", mx("foo", 5, "mx.google.com.")),
		tc("Change back to A", a("foo", "4.5.6.7")),
	}},
	{name: "TypeChangeHard", steps: []parityStep{
		tc("Create a CNAME", cname("foo", "google.com.")),
		tc("Change to A record", a("foo", "1.2.3.4")),
		tc("Change back to CNAME", cname("foo", "google2.com.")),
	}},
	{name: "CNAME pointing to @", steps: []parityStep{tc("Record pointing to @", cname("foo", "${zone}."), a("@", "1.2.3.4"))}},
	{name: "ApexMX", steps: []parityStep{tc("Record pointing to @", mx("foo", 8, "${zone}."), a("@", "1.2.3.4"))}},
	{name: "NullMX", steps: []parityStep{
		tc("create", a("nmx", "1.2.3.3"), a("www", "1.2.3.9"), mx("nmx", 0, ".")),
		tc("unnull", a("nmx", "1.2.3.3"), a("www", "1.2.3.9"), mx("nmx", 3, "nmx.${zone}."), mx("nmx", 9, "www.${zone}.")),
		tc("renull", a("nmx", "1.2.3.3"), a("www", "1.2.3.9"), mx("nmx", 0, ".")),
	}},
	{name: "NullMXApex", steps: []parityStep{
		tc("create", a("@", "1.2.3.2"), a("www", "1.2.3.8"), mx("@", 0, ".")),
		tc("unnull", a("@", "1.2.3.2"), a("www", "1.2.3.8"), mx("@", 2, "${zone}."), mx("@", 8, "www.${zone}.")),
		tc("renull", a("@", "1.2.3.2"), a("www", "1.2.3.8"), mx("@", 0, ".")),
	}},
	{name: "NS", steps: []parityStep{
		tc("NS for subdomain", ns("xyz", "ns2.foo.com.")),
		tc("Dual NS for subdomain", ns("xyz", "ns2.foo.com."), ns("xyz", "ns1.foo.com.")),
		tc("NS Record pointing to @", a("@", "1.2.3.4"), ns("foo", "${zone}.")),
	}},
	{name: "NS only APEX", steps: []parityStep{
		tc("Single NS at apex", ns("@", "ns1.foo.com.")),
		tc("Dual NS at apex", ns("@", "ns2.foo.com."), ns("@", "ns1.foo.com.")),
	}},
	{name: "complex TXT", steps: []parityStep{
		tc("a 0-byte TXT", txt("foo0", "")),
		tc("a 254-byte TXT", txt("foo254", repeat("A", 254))),
		tc("a 255-byte TXT", txt("foo255", repeat("B", 255))),
		tc("a 256-byte TXT", txt("foo256", repeat("C", 256))),
		tc("a 509-byte TXT", txt("foo509", repeat("D", 509))),
		tc("a 510-byte TXT", txt("foo510", repeat("E", 510))),
		tc("a 511-byte TXT", txt("foo511", repeat("F", 511))),
		tc("a 764-byte TXT", txt("foo764", repeat("G", 764))),
		tc("a 765-byte TXT", txt("foo765", repeat("H", 765))),
		tc("a 766-byte TXT", txt("foo766", repeat("J", 766))),
		tc("TXT with 1 single-quote", txt("foosq", "quo'te")),
		tc("TXT with 1 backtick", txt("foobt", "blah`blah")),
		tc("TXT with 1 dq-1interior", txt("foodq", `in"side`)),
		tc("TXT with 2 dq-2interior", txt("foodqs", `in"ter"ior`)),
		tc("TXT with 1 dq-left", txt("foodqs", `"left`)),
		tc("TXT with 1 dq-right", txt("foodqs", `right"`)),
		tc("TXT with semicolon", txt("foosc1", `semi;colon`)),
		tc("TXT with semicolon ws", txt("foosc2", `wssemi ; colon`)),
		tc("TXT interior ws", txt("foosp", "with spaces")),
		tc("TXT trailing ws", txt("foows1", "trailingws ")),
		tc("Create a TXT/SPF", txt("foo", "v=spf1 ip4:99.99.99.99 -all")),
	}},
	{name: "TXT backslashes", steps: []parityStep{
		tc("TXT with backslashs", txt("fooosbs1", `1back\slash`), txt("fooosbs2", `2back\\slash`),
			txt("fooosbs3", `3back\\\slash`), txt("fooosbs4", `4back\\\\slash`)),
	}},
	// Names are served as site writes them, in lower case (DNSControl
	// downcases them too).
	{name: "Case Sensitivity", steps: []parityStep{
		tc("Create CAPS", downcased(mx("BAR", 5, "BAR.com."))),
		tc("Downcase label", downcased(mx("bar", 5, "BAR.com.")), a("decoy", "1.1.1.1")),
		tc("Downcase target", mx("bar", 5, "bar.com."), a("decoy", "2.2.2.2")),
		tc("Upcase both", downcased(mx("BAR", 5, "BAR.COM.")), a("decoy", "3.3.3.3")),
	}},
	{name: "testByLabel", steps: []parityStep{
		tc("initial", a("foo", "1.2.3.4"), a("foo", "2.3.4.5")),
		tc("changeOne", a("foo", "1.2.3.4"), a("foo", "3.4.5.6")),
		tc("deleteOne", a("foo", "1.2.3.4")),
		tc("addOne", a("foo", "1.2.3.4"), a("foo", "3.4.5.6")),
	}},
	{name: "testByRecordSet", steps: []parityStep{
		tc("initial", a("bar", "1.2.3.4"), a("foo", "2.3.4.5"), a("foo", "3.4.5.6"), mx("foo", 10, "foo.${zone}."), mx("foo", 20, "bar.${zone}.")),
		tc("changeOne", a("bar", "1.2.3.4"), a("foo", "2.3.4.5"), a("foo", "8.8.8.8"), mx("foo", 10, "foo.${zone}."), mx("foo", 20, "bar.${zone}.")),
		tc("deleteOne", a("bar", "1.2.3.4"), a("foo", "2.3.4.5"), mx("foo", 10, "foo.${zone}."), mx("foo", 20, "bar.${zone}.")),
		tc("addOne", a("bar", "1.2.3.4"), a("foo", "2.3.4.5"), a("foo", "8.8.8.8"), mx("foo", 10, "foo.${zone}."), mx("foo", 20, "bar.${zone}.")),
	}},
	{name: "pager101", steps: []parityStep{
		tc("99 records", manyA("pager101-rec", "1.2.3.4", 99)...),
		tc("100 records", manyA("pager101-rec", "1.2.3.4", 100)...),
		tc("101 records", manyA("pager101-rec", "1.2.3.4", 101)...),
	}},
	{name: "CAA", steps: []parityStep{
		tc("CAA record", caa("@", 0, "issue", "letsencrypt.org")),
		tc("CAA change tag", caa("@", 0, "issuewild", "letsencrypt.org")),
		tc("CAA change target", caa("@", 0, "issuewild", "example.com")),
		tc("CAA change flag", caa("@", 128, "issuewild", "example.com")),
		tc("CAA many records", caa("@", 128, "issuewild", ";")),
		tc("CAA whitespace", caa("@", 0, "issue", "letsencrypt.org; validationmethods=dns-01; accounturi=https://acme-v02.api.letsencrypt.org/acme/acct/1234")),
	}},
	{name: "SRV", steps: []parityStep{
		tc("SRV record", srv("_sip._tcp", 5, 6, 7, "foo.com.")),
		tc("Second SRV record, same prio", srv("_sip._tcp", 5, 6, 7, "foo.com."), srv("_sip._tcp", 5, 60, 70, "foo2.com.")),
		tc("3 SRV", srv("_sip._tcp", 5, 6, 7, "foo.com."), srv("_sip._tcp", 5, 60, 70, "foo2.com."), srv("_sip._tcp", 15, 65, 75, "foo3.com.")),
		tc("Delete one", srv("_sip._tcp", 5, 6, 7, "foo.com."), srv("_sip._tcp", 15, 65, 75, "foo3.com.")),
		tc("Change Target", srv("_sip._tcp", 5, 6, 7, "foo.com."), srv("_sip._tcp", 15, 65, 75, "foo4.com.")),
		tc("Change Priority", srv("_sip._tcp", 52, 6, 7, "foo.com."), srv("_sip._tcp", 15, 65, 75, "foo4.com.")),
		tc("Change Weight", srv("_sip._tcp", 52, 62, 7, "foo.com."), srv("_sip._tcp", 15, 65, 75, "foo4.com.")),
		tc("Change Port", srv("_sip._tcp", 52, 62, 72, "foo.com."), srv("_sip._tcp", 15, 65, 75, "foo4.com.")),
		emptyZone(),
		tc("Null Target", srv("_sip._tcp", 15, 65, 75, ".")),
	}},
	{name: "SRV TTL (b2066)", steps: []parityStep{
		tc("Create SRV333", ttl(srv("_sip._tcp", 5, 6, 7, "foo.com."), 333)),
		tc("Change TTL999", ttl(srv("_sip._tcp", 5, 6, 7, "foo.com."), 999)),
	}},
}

func itoa(n int) string     { return strconv.Itoa(n) }
func quote(s string) string { return strconv.Quote(s) }
func pad4(n int) string     { return fmt.Sprintf("%04d", n) }

package main

// The integration cases DNSControl runs against PowerDNS for the record
// types of issue 12, as site specs. Read from DNSControl's
// integrationTest/integration_test.go (its makeTests): each group's
// steps in order, with their values, for the groups whose filters
// (requires, only, not) let them run on POWERDNS. Names are
// DNSControl's, so a failure here names the case to look up there.
// Targets DNSControl writes relative to the zone ("foo", "b") are
// written absolute, as site requires; ${zone} stands for the group's
// zone. Every record has DNSControl's TTL, 300.

// parityGroups are the groups translated, step by step.
var parityGroups = []parityGroup{
	{name: "HTTPS", steps: []parityStep{
		{name: "Create a HTTPS record", records: []rec{https("@", 1, "test.com.", "port=80")}},
		{name: "Change HTTPS priority", records: []rec{https("@", 2, "test.com.", "port=80")}},
		{name: "Change HTTPS target", records: []rec{https("@", 2, ".", "port=80")}},
		{name: "Change HTTPS params", records: []rec{https("@", 2, ".", "port=99")}},
		{name: "Change HTTPS params-empty", records: []rec{https("@", 2, ".", "")}},
		{name: "Change HTTPS all", records: []rec{https("@", 3, "example.com.", "port=100")}},
	}},
	// DNSControl writes ech=IGNORE for "keep the live ech value": its two
	// steps of that kind are commented out in its current makeTests and
	// were live in earlier ones. The first (nothing changes) is an
	// ignore rule with a value here; the second changes the record but
	// keeps one SvcParam as the server has it, which a spec cannot say:
	// it says whole values, and vet refuses IGNORE as an ech.
	{name: "Ech", steps: []parityStep{
		{name: "Create a HTTPS record", records: []rec{https("@", 0, "example.com.", "")}},
		{name: "Change priority, add params", records: []rec{https("@", 1, "example.com.", "alpn=h2,h3")}},
		{name: "Change target", records: []rec{https("@", 1, "other.com.", "alpn=h2,h3")}},
		{name: "Change params", records: []rec{https("@", 1, "other.com.", "alpn=h3 port=80")}},
		{name: "Add an ECH key", records: []rec{https("@", 1, "other.com.", "alpn=h3 port=80 ech="+echA)}},
		{name: "IGNORE ECH", ignore: []ignoreRule{{"@", "HTTPS", "1 other.com. alpn=h3 port=80 ech=*"}},
			kept: []rec{https("@", 1, "other.com.", "alpn=h3 port=80 ech="+echA)}, noChanges: true},
		{name: "Ignore the ECH key while changing other values", records: []rec{https("@", 1, "other.com.", "alpn=h2,h3 port=80 ech=IGNORE")}, refused: echLive},
		{name: "Change the ECH key and other values", records: []rec{https("@", 1, "example.org.", "port=80 ipv4hint=127.0.0.1 ech=another+base64+encoded+value")}},
		{name: "Another domain with a different ECH value", records: []rec{https("ech", 1, "yetanother.com.", "ech=third+base64+encoded+value//")}},
	}},
	{name: "SVCB", steps: []parityStep{
		{name: "Create a SVCB record", records: []rec{svcb("@", 1, "test.com.", "port=80")}},
		{name: "Change SVCB priority", records: []rec{svcb("@", 2, "test.com.", "port=80")}},
		{name: "Change SVCB target", records: []rec{svcb("@", 2, ".", "port=80")}},
		{name: "Change SVCB params", records: []rec{svcb("@", 2, ".", "port=99")}},
		{name: "Change SVCB remove params", records: []rec{svcb("@", 0, ".", "")}},
	}},
	// DNSControl's NAPTR cases once gave both a regexp and a replacement
	// (RFC 3403 §4.1 makes them exclusive, and site vet refuses that);
	// its current ones give a regexp with the replacement ".", then a
	// replacement alone.
	{name: "NAPTR", steps: []parityStep{
		{name: "NAPTR record", records: []rec{naptr("test", 100, 10, "U", "E2U+sip", sipRE, ".")}},
		{name: "NAPTR second record", records: []rec{naptr("test", 100, 10, "U", "E2U+sip", sipRE, "."), naptr("test", 102, 10, "U", "E2U+email", mailRE, ".")}},
		{name: "NAPTR delete second record", records: []rec{naptr("test", 100, 10, "U", "E2U+sip", sipRE, ".")}},
		{name: "NAPTR change order", records: []rec{naptr("test", 103, 10, "U", "E2U+email", mailRE, ".")}},
		{name: "NAPTR change preference", records: []rec{naptr("test", 103, 20, "U", "E2U+email", mailRE, ".")}},
		{name: "NAPTR change flags", records: []rec{naptr("test", 103, 20, "A", "E2U+email", mailRE, ".")}},
		{name: "NAPTR change service", records: []rec{naptr("test", 103, 20, "A", "E2U+sip", mailRE, ".")}},
		{name: "NAPTR change regexp", records: []rec{naptr("test", 103, 20, "A", "E2U+sip", sipRE, ".")}},
		{name: "NAPTR remove regexp and add target", records: []rec{naptr("test", 103, 20, "A", "E2U+sip", "", "example.foo.com.")}},
		{name: "NAPTR change target", records: []rec{naptr("test", 103, 20, "A", "E2U+sip", "", "example2.foo.com.")}},
	}},
	{name: "PTR", steps: []parityStep{
		{name: "Create PTR record", records: []rec{ptr("4", "foo.com.")}},
		{name: "Modify PTR record", records: []rec{ptr("4", "bar.com.")}},
	}},
	{name: "SSHFP", steps: []parityStep{
		{name: "SSHFP record", records: []rec{sshfp("@", 1, 1, "66c7d5540b7d75a1fb4c84febfa178ad99bdd67c")}},
		{name: "SSHFP change algorithm", records: []rec{sshfp("@", 2, 1, "66c7d5540b7d75a1fb4c84febfa178ad99bdd67c")}},
		{name: "SSHFP change fingerprint and type", records: []rec{sshfp("@", 2, 2, "745a635bc46a397a5c4f21d437483005bcc40d7511ff15fbfafe913a081559bc")}},
	}},
	{name: "TLSA", steps: []parityStep{
		{name: "TLSA record", records: []rec{tlsa("_443._tcp", 3, 1, 1, sha256hash)}},
		{name: "TLSA change usage", records: []rec{tlsa("_443._tcp", 2, 1, 1, sha256hash)}},
		{name: "TLSA change selector", records: []rec{tlsa("_443._tcp", 2, 0, 1, sha256hash)}},
		{name: "TLSA change matchingtype", records: []rec{tlsa("_443._tcp", 2, 0, 2, sha512hash)}},
		{name: "TLSA change certificate", records: []rec{tlsa("_443._tcp", 2, 0, 2, reversedSha512)}},
	}},
	{name: "DS", steps: []parityStep{
		{name: "DS create", records: []rec{ds("@", 1, 13, 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")}, refused: dsAtApex},
		{name: "DS change", records: []rec{ds("@", 8857, 8, 2, digest256a)}, refused: dsAtApex},
		{name: "DS change f1", records: []rec{ds("@", 3, 8, 2, digest256a)}, refused: dsAtApex},
		{name: "DS change f2", records: []rec{ds("@", 3, 13, 2, digest256a)}, refused: dsAtApex},
		{name: "DS change f3+4", records: []rec{ds("@", 3, 13, 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")}, refused: dsAtApex},
		{name: "DS delete 1, create child", records: []rec{ds("another-child", 44, 13, 2, digest256a)}},
		{name: "add 2 more DS", records: []rec{
			ds("another-child", 44, 13, 2, digest256a),
			ds("another-child", 1501, 13, 1, "ee02c885b5b4ed64899f2d43eb2b8e6619bdb50c"),
			ds("another-child", 1502, 8, 2, digest256b),
			ds("another-child", 65535, 13, 2, digest256b),
		}},
		{name: "DSchild create", records: []rec{ds("child", 1, 13, 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")}},
		{name: "DSchild change", records: []rec{ds("child", 8857, 8, 2, digest256a)}},
		{name: "DSchild change f1", records: []rec{ds("child", 3, 8, 2, digest256a)}},
		{name: "DSchild change f2", records: []rec{ds("child", 3, 13, 2, digest256a)}},
		{name: "DSchild change f3+4", records: []rec{ds("child", 3, 13, 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709")}},
		{name: "DSchild delete 1, create child", records: []rec{ds("another-child", 44, 13, 2, digest256a)}},
	}},
	{name: "DS (children only)", steps: []parityStep{
		{name: "DSchild create", records: []rec{ds("child", 1, 14, 4, digest384a)}},
		{name: "DSchild change", records: []rec{ds("child", 8857, 8, 2, digest256a)}},
		{name: "DSchild change f1", records: []rec{ds("child", 3, 8, 2, digest256a)}},
		{name: "DSchild change f2", records: []rec{ds("child", 3, 13, 2, digest256a)}},
		{name: "DSchild change f3+4", records: []rec{ds("child", 3, 14, 4, digest384b)}},
		{name: "DSchild delete 1, create child", records: []rec{ds("another-child", 44, 13, 2, digest256a)}},
		{name: "add 2 more DSchild", records: []rec{
			ds("another-child", 44, 13, 2, digest256a),
			ds("another-child", 1501, 14, 4, digest384c),
			ds("another-child", 1502, 8, 2, digest256b),
			ds("another-child", 65535, 13, 2, digest256b),
		}},
	}},
	{name: "DHCID", steps: []parityStep{
		{name: "Create DHCID record", records: []rec{dhcid("test", "AAIBY2/AuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=")}},
		{name: "Modify DHCID record", records: []rec{dhcid("test", "AAAAAAAAuCccgoJbsaxcQc9TUapptP69lOjxfNuVAA2kjEA=")}},
	}},
	{name: "DNAME", steps: []parityStep{
		{name: "Create DNAME record", records: []rec{dname("test", "example.com.")}},
		{name: "Modify DNAME record", records: []rec{dname("test", "example.net.")}},
		{name: "Create DNAME record in non-FQDN", records: []rec{dname("a", "b.${zone}.")}},
	}},
	{name: "ALIAS on apex", steps: []parityStep{
		{name: "ALIAS at root", records: []rec{alias("@", "foo.com.")}},
		{name: "change it", records: []rec{alias("@", "foo2.com.")}},
	}},
	{name: "ALIAS to nonfqdn", steps: []parityStep{
		{name: "ALIAS at root", records: []rec{a("foo", "1.2.3.4"), alias("@", "foo.${zone}.")}},
	}},
	{name: "ALIAS on subdomain", steps: []parityStep{
		{name: "ALIAS at subdomain", records: []rec{alias("test", "foo.com.")}},
		{name: "change it", records: []rec{alias("test", "foo2.com.")}},
	}},
	// DNSKEY is not in site's language: a zone's keys are PowerDNS's,
	// made and rolled through dnssec: true and the cryptokeys API, and
	// a DNSKEY written as a record would sign nothing.
	{name: "DNSKEY", steps: []parityStep{
		{name: "Create DNSKEY record", records: []rec{dnskey("test", "257 3 13 fRnjbeUVyKvz1bDx2lPmu3KY1k64T358t8kP6Hjveos=")}, refused: noDNSKEY},
		{name: "Modify DNSKEY record 1", records: []rec{dnskey("test", "256 3 13 fRnjbeUVyKvz1bDx2lPmu3KY1k64T358t8kP6Hjveos=")}, refused: noDNSKEY},
		{name: "Modify DNSKEY record 2", records: []rec{dnskey("test", "256 3 13 whjtMiJP9C86l0oTJUxemuYtQ0RIZePWt6QETC2kkKM=")}, refused: noDNSKEY},
		{name: "Modify DNSKEY record 3", records: []rec{dnskey("test", "256 3 15 whjtMiJP9C86l0oTJUxemuYtQ0RIZePWt6QETC2kkKM=")}, refused: noDNSKEY},
	}},
}

// What site vet says about the cases it deliberately cannot express
// (parityStep.refused). The reasons are in the messages.
const (
	// A zone's DS is its parent's data (RFC 4035 §2.4); PowerDNS
	// answers 422 "DS is not allowed at apex".
	dsAtApex = "a DS at the apex"
	noDNSKEY = "DNSKEY"
	// DNSControl's ech=IGNORE keeps the live ech value in a record it
	// changes; a spec says whole values, so site cannot.
	echLive = `not valid SvcParams ("ech=IGNORE")`
)

// The regexps of DNSControl's NAPTR cases.
const (
	sipRE  = "!^.*$!sip:customer-service@example.com!"
	mailRE = "!^.*$!mailto:information@example.com!"
)

// echA is the ECH config of DNSControl's Ech cases.
const echA = "some+base64+encoded+value///"

// The digests of DNSControl's cases: sha256hash and its kin are built
// there from repeated hex; the DS digests are literals.
var (
	sha256hash     = repeat("0123456789abcdef", 4)
	sha512hash     = repeat("0123456789abcdef", 8)
	reversedSha512 = repeat("fedcba9876543210", 8)
	digest256a     = "4b9b6b073edd97feb5bc12dc4e1b32d2c6af7ae23a293936ceb87bb10494ec44"
	digest256b     = "2fa14f53e6b15cac9ac77846c7be87862c2a7e9ec0c6cea319db939317f126ed"
	digest384a     = "417212fd1c8bc5896fefd8db58af824545e85b0d0546409366a30aef7269fae258173bd185fb262c86f3bb86fba04368"
	digest384b     = "3115238f89e0bf5252d9718113b1b9fff854608d84be94eefb9210dc1cc0b4f3557342a27465cfacc42ef137ae9a5489"
	digest384c     = "109bb6b5b6d5547c1ce03c7a8bd7d8f80c1cb0957f50c4f7fda04692079917e4f9cad52b878f3d8234e1a170b154b72d"
)

// parityAliasTargets are the zones DNSControl's ALIAS cases point at
// (foo.com., foo2.com.), served by the test's PowerDNS so that its
// expand-alias resolves them without leaving loopback.
var parityAliasTargets = map[string]string{"foo.com.": "192.0.2.101", "foo2.com.": "192.0.2.102"}

// parityGroupsNotRun are DNSControl's groups for these types that it
// does not run against PowerDNS, so none is translated here.
var parityGroupsNotRun = map[string]string{
	"DS (children only) CLOUDNS": "only(CLOUDNS, CLOUDFLAREAPI); its records are DS (children only)'s beside an NS, which site expresses",
}

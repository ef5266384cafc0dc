package main

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
)

// The rest of DNSControl's groups its filters run on POWERDNS: SOA,
// IDNA, OPENPGPKEY, final and the IGNORE groups not in
// parity_ignore_cases_test.go.

// openpgpkey is DNSControl's openpgpkey(name, key), the key in hex or
// base64; a spec writes it in base64 (RFC 7929's presentation form),
// so hex is written as the same bytes in base64.
func openpgpkey(name, key string) rec {
	if b, err := hex.DecodeString(key); err == nil {
		key = base64.StdEncoding.EncodeToString(b)
	}
	return rec{name, "OPENPGPKEY", strconv.Quote(key), key, 0}
}

// punycoded is r as the server serves it: a name in its data as IDNA
// A-labels (expectedRR does the same for every owner); the spec still
// writes it in Unicode.
func punycoded(r rec) rec {
	if r.typ == "CNAME" {
		r.rdata = aLabels(r.rdata)
	}
	return r
}

const (
	pgpOwner1 = "bb7d0cf1ee44aca0bcc0f739b77b935f13aec2fd537f5c29dedd883d._openpgpkey"
	pgpOwner2 = "6c9b19cb967b563d9d96b341ad4a89a74444c6f18e9530f4623817fe._openpgpkey"
)

// soaStep is a step of DNSControl's SOA group: no records, the zone's
// SOA fields as soa() gives them (its serial, 2037190000 in every step,
// is the server's in site: a spec cannot set it).
func soaStep(name, ns, mbox string, refresh, retry, expire, minimum int) parityStep {
	return parityStep{name: name, soa: &soaFields{ns, mbox, refresh, retry, expire, minimum}}
}

var parityMoreGroups = []parityGroup{
	{name: "SOA", steps: []parityStep{
		emptyZone(),
		soaStep("Create SOA record", "kim.ns.cloudflare.com.", "dns.cloudflare.com.", 10000, 2400, 604800, 3600),
		soaStep("Modify SOA ns    ", "mmm.ns.cloudflare.com.", "dns.cloudflare.com.", 10000, 2400, 604800, 3600),
		soaStep("Modify SOA mbox  ", "mmm.ns.cloudflare.com.", "eee.cloudflare.com.", 10000, 2400, 604800, 3600),
		soaStep("Modify SOA refres", "mmm.ns.cloudflare.com.", "eee.cloudflare.com.", 10001, 2400, 604800, 3600),
		soaStep("Modify SOA retry ", "mmm.ns.cloudflare.com.", "eee.cloudflare.com.", 10001, 2401, 604800, 3600),
		soaStep("Modify SOA expire", "mmm.ns.cloudflare.com.", "eee.cloudflare.com.", 10001, 2401, 604801, 3600),
		soaStep("Modify SOA minttl", "mmm.ns.cloudflare.com.", "eee.cloudflare.com.", 10001, 2401, 604801, 3601),
	}},
	// Names in Unicode are served as IDNA A-labels (xn--...), as
	// DNSControl writes them too.
	{name: "IDNA", steps: []parityStep{
		tc("Internationalized name", punycoded(a("ööö", "1.2.3.4"))),
		tc("Change IDN", punycoded(a("ööö", "2.2.2.2"))),
		tc("Chinese label", punycoded(a("中文", "1.2.3.4"))),
		tc("Internationalized CNAME Target", punycoded(cname("a", "ööö.com."))),
	}},
	{name: "IDNAs in CNAME targets", steps: []parityStep{tc("IDN CNAME AND Target", punycoded(cname("öoö", "ööö.企业.")))}},
	{name: "OPENPGPKEY", steps: []parityStep{
		tc("OPENPGPKEY records",
			openpgpkey(pgpOwner1, "9833040000000116092b06010401da470f010107403b6b9ff1ad0c524356507cdecbc1616093f6492fb4eb5a45f8614adb77a057d2b4244578616d706c652031203c6578616d706c652d3140646e73636f6e74726f6c2e6f72673e887e0413160a0026162104c0fe77c20fe349b863cda9980bfe1cf3d96e34ce050200000001021b01021e05021780000a09100bfe1cf3d96e34ce3f2e0100f00463e222747d5ae94519e1ad3b651b0a2cd7bd130e14ee65f3e818cab0792d00ff5196b60ebfcb047810fb51bbea7d5a882c4263b51ce9376a0dc8e5dee23f5f02"),
			openpgpkey(pgpOwner2, "mDMEAAAAARYJKwYBBAHaRw8BAQdAxCQnAKBDmA75+73+3lYVXDwrMUbaR61fNZgGeOHwmDq0JEV4YW1wbGUgMiA8ZXhhbXBsZS0yQGRuc2NvbnRyb2wub3JnPoh+BBMWCgAmFiEEYZ3PIZnaOWQrPxj6VX+9VdC3r4wFAgAAAAECGwECHgUCF4AACgkQVX+9VdC3r4xq6wEAl2ujFSqWwc2wQuHedpFrSTN9Gh7cIziKCZ3f8BGSRTgBAIvjKlWLLLBu0FPpCVlcfkpsZMV5YRrg90k+D+O4zZ4M")),
		tc("OPENPGPKEY record change same format",
			openpgpkey(pgpOwner1, "9833040000000116092b06010401da470f010107401471ec1d5cc4d6bbd8702997ed29f95f7a7bd5e179aa8d3698efc8b942eb08f5b4244578616d706c652031203c6578616d706c652d3140646e73636f6e74726f6c2e6f72673e887e0413160a00261621049305f15ff783096d39427e6d048e36367e3e3ae2050200000001021b01021e05021780000a0910048e36367e3e3ae2ffaa00ff4b6ad99b62da7e9d759abe6ae232016780c24bf5e5f869b8003be83c6a73933c0100b66ac65093a0fe0a434448d9996ab46412cbe7c70d5c5ab74abba4566c468d0a"),
			openpgpkey(pgpOwner2, "mDMEAAAAARYJKwYBBAHaRw8BAQdAQWiJ4gXP6wC2wQ7h7odcLpZU+mQD2rHiqtTgj+1e6ou0JEV4YW1wbGUgMiA8ZXhhbXBsZS0yQGRuc2NvbnRyb2wub3JnPoh+BBMWCgAmFiEE/tuN1tP/jpKko/EvTN4yJT7efAsFAgAAAAECGwECHgUCF4AACgkQTN4yJT7efAuxPQD/aEhrJaCX9FD1IkjA/8UmK0nokjtJNy46It3IWTGT4EQBAJI6goeRQBJqu/UnHmjv0OfqBQQCt87f9zXqZxLjiIQN")),
		{name: "OPENPGPKEY record change different formats", noChanges: true, records: []rec{
			openpgpkey(pgpOwner1, "mDMEAAAAARYJKwYBBAHaRw8BAQdAFHHsHVzE1rvYcCmX7Sn5X3p71eF5qo02mO/IuULrCPW0JEV4YW1wbGUgMSA8ZXhhbXBsZS0xQGRuc2NvbnRyb2wub3JnPoh+BBMWCgAmFiEEkwXxX/eDCW05Qn5tBI42Nn4+OuIFAgAAAAECGwECHgUCF4AACgkQBI42Nn4+OuL/qgD/S2rZm2Lafp11mr5q4jIBZ4DCS/Xl+Gm4ADvoPGpzkzwBALZqxlCToP4KQ0RI2ZlqtGQSy+fHDVxat0q7pFZsRo0K"),
			openpgpkey(pgpOwner2, "9833040000000116092b06010401da470f01010740416889e205cfeb00b6c10ee1ee875c2e9654fa6403dab1e2aad4e08fed5eea8bb4244578616d706c652032203c6578616d706c652d3240646e73636f6e74726f6c2e6f72673e887e0413160a0026162104fedb8dd6d3ff8e92a4a3f12f4cde32253ede7c0b050200000001021b01021e05021780000a09104cde32253ede7c0bb13d00ff68486b25a097f450f52248c0ffc5262b49e8923b49372e3a22ddc8593193e0440100923a82879140126abbf5271e68efd0e7ea050402b7cedff735ea6712e388840d"),
		}},
	}},
	// "Unsafe" IGNOREs (DNSControl's UnsafeIgnore): the step lists
	// records its rules also ignore. site vet refuses a record an ignore
	// rule covers (site would never write it), so the spec leaves those
	// out; what DNSControl checks is the same: they stay, unchanged.
	{name: "IGNORE unsafe", steps: steps(
		create(recs(txt("foo", "simple"), a("foo", "1.2.3.4"), txt("@", "asimple"), a("@", "2.2.2.2"))),
		ignoreStep("ignore unsafe apex", recs(txt("foo", "simple"), a("foo", "1.2.3.4")), ignore("@", "", ""),
			recs(txt("@", "asimple"), a("@", "2.2.2.2")), true),
		ignoreStep("ignore unsafe label", recs(txt("@", "asimple"), a("@", "2.2.2.2")), ignore("foo", "", ""),
			recs(txt("foo", "simple"), a("foo", "1.2.3.4")), true),
	)},
	{name: "IGNORE everything b2822", steps: steps(
		create(recs(a("dyndns-city1", "91.42.1.1"), a("dyndns-city2", "91.42.1.2"), aaaa("dyndns-city1", "2003:dd:d7ff::fe71:ce77"), aaaa("dyndns-city2", "2003:dd:d7ff::fe71:ce78"))),
		ignoreStep("ignore them all", nil, append(ignore("dyndns-city1", "A,AAAA", ""), ignore("dyndns-city2", "A,AAAA", "")...),
			recs(a("dyndns-city1", "91.42.1.1"), a("dyndns-city2", "91.42.1.2"), aaaa("dyndns-city1", "2003:dd:d7ff::fe71:ce77"), aaaa("dyndns-city2", "2003:dd:d7ff::fe71:ce78")), true),
	)},
	// DNSControl's makeTests ends with this group twice.
	{name: "final", steps: []parityStep{tc("final", txt("final", "TestDNSProviders was successful!"))}},
	{name: "final (second)", steps: []parityStep{tc("final", txt("final", "TestDNSProviders was successful!"))}},
	{name: "IGNORE w/change b3227", steps: steps(
		create(recs(a("testignore", "8.8.8.8"), a("testdefined", "9.9.9.9"))),
		ignoreStep("ignore", recs(a("testdefined", "9.9.9.9")), ignore("testignore", "", ""), recs(a("testignore", "8.8.8.8")), true),
		[]parityStep{
			{name: "Verify nothing changed", records: recs(a("testignore", "8.8.8.8"), a("testdefined", "9.9.9.9")), noChanges: true},
			{name: "VERIFY PREVIOUS (Verify nothing changed)", records: recs(a("testignore", "8.8.8.8"), a("testdefined", "9.9.9.9")), noChanges: true},
		},
		ignoreStep("ignore with change", recs(a("testdefined", "2.2.2.2")), ignore("testignore", "", ""), recs(a("testignore", "8.8.8.8")), false),
	)},
}

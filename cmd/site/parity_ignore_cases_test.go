package main

// DNSControl's IGNORE integration groups (its integrationTest
// makeTests, the groups "IGNORE main" to "IGNORE_TARGET b2285"), which
// it runs against every provider, PowerDNS included. IGNORE(label,
// types, target) becomes the zone's ignore rules (see ignore); a
// step's kept are the records those rules keep served beside the
// spec's, which DNSControl checks with the "VERIFY PREVIOUS" step that
// follows each; noChanges is its ExpectNoChanges(). Every record has
// DNSControl's TTL, 300.

// The records DNSControl's IGNORE groups start from.
var (
	ignFoo  = []rec{a("foo", "1.2.3.4"), a("foo", "2.3.4.5"), txt("foo", "simple")}
	ignBar  = a("bar", "5.5.5.5")
	ignMail = cname("mail", "ghs.googlehosted.com.")
	ignMain = append(append([]rec{}, ignFoo...), ignBar, ignMail)
	ignApex = []rec{a("@", "1.2.3.4"), a("@", "2.3.4.5"), txt("@", "simple"), ignBar, ignMail}
	ignWild = []rec{a("foo.bat", "1.2.3.4"), a("foo.bat", "2.3.4.5"), txt("foo.bat", "simple"),
		a("bar.bat", "5.5.5.5"), cname("mail.bat", "ghs.googlehosted.com.")}
	ignModFoo = []rec{aaaa("foo", "2003:dd:d7ff::fe71:aaaa"), mx("foo", 10, "aspmx.l.google.com."), mx("foo", 20, "alt1.aspmx.l.google.com.")}
	ignModZZZ = []rec{a("zzz", "3.3.3.3"), a("zzz", "4.4.4.4"), aaaa("zzz", "2003:dd:d7ff::fe71:cccc")}
)

// ignoreStep is a step that writes recs under rules and leaves kept
// as they are, and its "VERIFY PREVIOUS": the whole zone written again,
// nothing to change. noChanges is DNSControl's ExpectNoChanges() on
// the first.
func ignoreStep(name string, recs []rec, rules []ignoreRule, kept []rec, noChanges bool) []parityStep {
	return []parityStep{
		{name: name, records: recs, ignore: rules, kept: kept, noChanges: noChanges},
		{name: "VERIFY PREVIOUS (" + name + ")", records: append(append([]rec{}, recs...), kept...), noChanges: true},
	}
}

// steps joins a group's steps.
func steps(parts ...[]parityStep) []parityStep {
	var out []parityStep
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func create(recs []rec) []parityStep {
	return []parityStep{{name: "Create some records", records: recs}}
}

// recs joins records and lists of them.
func recs(parts ...any) []rec {
	var out []rec
	for _, p := range parts {
		switch v := p.(type) {
		case rec:
			out = append(out, v)
		case []rec:
			out = append(out, v...)
		}
	}
	return out
}

var parityIgnoreGroups = []parityGroup{
	{name: "IGNORE main", steps: steps(create(ignMain),
		ignoreStep("ignore label", recs(ignBar, ignMail), ignore("foo", "", ""), ignFoo, true),
		ignoreStep("ignore label,type", recs(ignFoo[2], ignBar, ignMail), ignore("foo", "A", ""), ignFoo[:2], true),
		ignoreStep("ignore label,type,target", recs(ignFoo[1:], ignBar, ignMail), ignore("foo", "A", "1.2.3.4"), ignFoo[:1], true),
		ignoreStep("ignore type", recs(ignFoo[2], ignMail), ignore("", "A", ""), recs(ignFoo[:2], ignBar), true),
		ignoreStep("ignore type,target", recs(ignFoo[0], ignFoo[2], ignBar, ignMail), ignore("", "A", "2.3.4.5"), ignFoo[1:2], true),
		ignoreStep("ignore target", recs(ignFoo[0], ignFoo[2], ignBar, ignMail), ignore("", "", "2.3.4.5"), ignFoo[1:2], true),
		ignoreStep("ignore manytypes", recs(ignMail), ignore("", "A,TXT", ""), recs(ignFoo, ignBar), true),
		ignoreStep("ignore label,type,target=*", recs(ignFoo, ignBar), ignore("", "CNAME", "*.googlehosted.com."), recs(ignMail), true),
	)},
	{name: "IGNORE apex", steps: steps(create(ignApex),
		ignoreStep("apex label", recs(ignBar, ignMail), ignore("@", "", ""), ignApex[:3], true),
		ignoreStep("apex label,type", recs(ignApex[2], ignBar, ignMail), ignore("@", "A", ""), ignApex[:2], true),
		ignoreStep("apex label,type,target", recs(ignApex[1:]), ignore("@", "A", "1.2.3.4"), ignApex[:1], true),
		ignoreStep("apex type", recs(ignApex[2], ignMail), ignore("", "A", ""), recs(ignApex[:2], ignBar), true),
		ignoreStep("apex type,target", recs(ignApex[0], ignApex[2:]), ignore("", "A", "2.3.4.5"), ignApex[1:2], true),
		ignoreStep("apex target", recs(ignApex[0], ignApex[2:]), ignore("", "", "2.3.4.5"), ignApex[1:2], true),
		ignoreStep("apex manytypes", recs(ignMail), ignore("", "A,TXT", ""), ignApex[:4], true),
	)},
	{name: "IGNORE wilds", steps: steps(create(ignWild),
		ignoreStep("ignore label=foo.*", ignWild[3:], ignore("foo.*", "", ""), ignWild[:3], true),
		ignoreStep("ignore label=foo.bat,type", recs(ignWild[2], ignWild[4]), ignore("*.bat", "A", ""), recs(ignWild[:2], ignWild[3]), true),
		ignoreStep("ignore target=*.domain", ignWild[:4], ignore("", "", "*.googlehosted.com."), ignWild[4:], true),
	)},
	{name: "IGNORE with modify", steps: steps(create(recs(a("foo", "1.1.1.1"), a("foo", "10.10.10.10"), ignModFoo, ignModZZZ)),
		ignoreStep("IGNORE change ByZone", recs(a("foo", "1.1.1.1"), a("foo", "11.11.11.11"), ignModFoo, ignModZZZ[2]),
			ignore("zzz", "A", ""), ignModZZZ[:2], false),
		ignoreStep("IGNORE change ByLabel", recs(a("foo", "1.1.1.1"), a("foo", "12.12.12.12"), ignModFoo[0], ignModZZZ),
			ignore("foo", "MX", ""), ignModFoo[1:], false),
		ignoreStep("IGNORE change ByRecordSet", recs(a("foo", "1.1.1.1"), a("foo", "13.13.13.13"), ignModZZZ),
			ignore("foo", "MX,AAAA", ""), ignModFoo, false),
		ignoreStep("IGNORE change ByRecord", recs(a("foo", "14.14.14.14"), ignModFoo, ignModZZZ),
			ignore("foo", "A", "1.1.1.1"), recs(a("foo", "1.1.1.1")), false),
	)},
	{name: "IGNORE_TARGET b2285", steps: steps(create(recs(cname("foo", "redact1.acm-validations.aws."), cname("bar", "redact2.acm-validations.aws."))),
		ignoreStep("Add a new record - ignoring test.foo.com.", nil, ignore("", "CNAME", "**.acm-validations.aws."),
			recs(cname("foo", "redact1.acm-validations.aws."), cname("bar", "redact2.acm-validations.aws.")), true),
	)},
}

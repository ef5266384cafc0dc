package powerdns

import "github.com/site-tools/site/compiler/rules"

// Rules is where PowerDNS takes less than DNS does for the records site
// writes: nowhere. It serves every type site manages (rrtypes_test.go
// writes each), any TTL DNS allows, no proxy, and every SOA field. It
// is declared all the same so that vet knows the kind: a provider kind
// without rules is refused, not checked against nothing.
var Rules = &rules.Rules{Kind: "powerdns", Name: "PowerDNS"}

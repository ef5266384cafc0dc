package rules

import (
	"fmt"
	"testing"
)

// example is a provider made up for the tests: the checks read only
// what its data says.
var example = &Rules{
	Kind: "example", Name: "Example", Instead: "serve this zone elsewhere",
	Types:    []string{"A", "AAAA", "ALIAS", "SRV", "HTTPS"},
	TTL:      &TTLRange{Auto: 1, Min: 120, Max: 3600},
	ApexOnly: []ApexOnly{{Type: "ALIAS", Why: "an ALIAS is its apex trick", Below: "below the apex write CNAME"}},
	Values: []ValueRule{
		{Type: "SRV", Field: "target", Refused: map[string]string{".": "(no such service)"}, Why: "which wants a host"},
		{Type: "HTTPS", Field: "target", Refused: map[string]string{".": "(the owner name)"}, Why: "which wants a name"},
	},
	Proxy:       &Proxy{Types: []string{"A"}, Says: "A alone", TTL: 5, TTLSays: "its own"},
	SOA:         &SOARules{Ranges: map[string]Range{"retry": {Min: 10, Max: 20}}, Primary: "picks its own primary"},
	IgnoreValue: "values are not for Example",
}

// plain declares no limits: every check passes.
var plain = &Rules{Kind: "plain", Name: "Plain"}

func TestRulesChecks(t *testing.T) {
	for _, c := range []struct {
		name  string
		r     *Rules
		check func(r *Rules) error
		want  string // "" for none
	}{
		{"type served", example, func(r *Rules) error { return r.TypeError("A") }, ""},
		{"type not served", example, func(r *Rules) error { return r.TypeError("MX") },
			"Example has no MX records; serve this zone elsewhere, or remove them"},
		{"every type without a list", plain, func(r *Rules) error { return r.TypeError("MX") }, ""},
		{"ttl auto", example, func(r *Rules) error { return r.TTLError(1) }, ""},
		{"ttl min", example, func(r *Rules) error { return r.TTLError(120) }, ""},
		{"ttl max", example, func(r *Rules) error { return r.TTLError(3600) }, ""},
		{"ttl below", example, func(r *Rules) error { return r.TTLError(119) },
			"TTL 119 is outside what Example takes; use 1 (automatic) or 120 to 3600 seconds"},
		{"ttl above", example, func(r *Rules) error { return r.TTLError(3601) },
			"TTL 3601 is outside what Example takes; use 1 (automatic) or 120 to 3600 seconds"},
		{"ttl without auto", &Rules{Name: "NoAuto", TTL: &TTLRange{Min: 60, Max: 90}}, func(r *Rules) error { return r.TTLError(1) },
			"TTL 1 is outside what NoAuto takes; use 60 to 90 seconds"},
		{"ttl without range", plain, func(r *Rules) error { return r.TTLError(1) }, ""},
		{"apex only at apex", example, func(r *Rules) error { return r.ApexError("ALIAS", []string{"t.example."}, true) }, ""},
		{"apex only below", example, func(r *Rules) error { return r.ApexError("ALIAS", []string{"t.example."}, false) },
			`on Example an ALIAS is its apex trick; below the apex write CNAME: "t.example."`},
		{"apex only other type", example, func(r *Rules) error { return r.ApexError("A", []string{"192.0.2.1"}, false) }, ""},
		{"srv refused target", example, func(r *Rules) error { return r.ValueError("SRV", "0 0 0 .") },
			`SRV target "." (no such service) is refused by Example, which wants a host; serve this zone elsewhere, or remove the record`},
		{"srv host target", example, func(r *Rules) error { return r.ValueError("SRV", "0 0 5060 sip.example.") }, ""},
		{"https refused target", example, func(r *Rules) error { return r.ValueError("HTTPS", "1 . alpn=h2") },
			`HTTPS target "." (the owner name) is refused by Example, which wants a name; serve this zone elsewhere, or remove the record`},
		{"value of a type without rules", example, func(r *Rules) error { return r.ValueError("A", "192.0.2.1") }, ""},
		{"value that does not parse", example, func(r *Rules) error { return r.ValueError("SRV", "nonsense") }, ""},
		{"field refused", example, func(r *Rules) error { return r.FieldError("SRV", "target", ".") },
			`SRV target "." is refused by Example, which wants a host`},
		{"field taken", example, func(r *Rules) error { return r.FieldError("SRV", "target", "h.example.") }, ""},
		{"proxy type", example, func(r *Rules) error { return r.ProxyTypeError("A") }, ""},
		{"proxy other type", example, func(r *Rules) error { return r.ProxyTypeError("AAAA") },
			"Example proxies only A alone, not AAAA; move the AAAA records to a name without proxied: true"},
		{"proxy ttl at the name", example, func(r *Rules) error { return r.ProxyTTLError("") },
			"a proxied name is served with Example's own TTL (it reports 5, its own); remove ttl, or proxied"},
		{"proxy ttl of a type", example, func(r *Rules) error { return r.ProxyTTLError("A") },
			"a proxied A is served with Example's own TTL (it reports 5, its own); remove its ttls entry, or proxied"},
		{"soa in range", example, func(r *Rules) error { return r.SOAError("retry", 15) }, ""},
		{"soa out of range", example, func(r *Rules) error { return r.SOAError("retry", 21) },
			"soa retry 21 is outside what Example takes; use 10 to 20"},
		{"soa field without range", example, func(r *Rules) error { return r.SOAError("expire", 1) }, ""},
		{"soa primary", example, func(r *Rules) error { return r.PrimaryError() },
			"soa primary: Example picks its own primary; remove primary from this zone's soa"},
		{"soa primary taken", plain, func(r *Rules) error { return r.PrimaryError() }, ""},
		{"ignore value", example, func(r *Rules) error { return r.IgnoreValueError("TXT") },
			"values are not for Example: remove value, or ignore the whole TXT"},
		{"ignore value taken", plain, func(r *Rules) error { return r.IgnoreValueError("name") }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.check(c.r)
			if got := fmt.Sprint(err); (c.want == "") != (err == nil) || (err != nil && got != c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestRulesSet(t *testing.T) {
	s := NewSet(example, plain)
	if s["example"] != example || s["plain"] != plain || len(s) != 2 {
		t.Fatalf("NewSet: %v", s)
	}
	if got := s.ProxyOwners(); got != "Example's" {
		t.Errorf("ProxyOwners: %q, want the one kind with a proxy", got)
	}
	if !example.Proxies("A") || example.Proxies("AAAA") || plain.Proxies("A") {
		t.Error("Proxies does not follow Proxy.Types")
	}
}

package model

import "testing"

func TestIgnoreRuleMatches(t *testing.T) {
	tests := []struct {
		rule      IgnoreRule
		name, typ string
		want      bool
	}{
		{IgnoreRule{Name: "_acme-challenge.example.com.", Type: "TXT"}, "_acme-challenge.example.com.", "TXT", true},
		{IgnoreRule{Name: "_acme-challenge.example.com.", Type: "TXT"}, "_acme-challenge.example.com.", "A", false},
		{IgnoreRule{Name: "*.dyn.example.com."}, "a.b.dyn.example.com.", "AAAA", true},
		{IgnoreRule{Name: "*.dyn.example.com."}, "dyn.example.com.", "A", false},
		{IgnoreRule{Name: "host?.example.com."}, "host1.example.com.", "A", true},
		{IgnoreRule{Name: "[ab].example.com."}, "c.example.com.", "A", false},
	}
	for _, tt := range tests {
		t.Run(tt.rule.Name+" "+tt.name+" "+tt.typ, func(t *testing.T) {
			if got := tt.rule.Matches(tt.name, tt.typ); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	z := &Zone{Ignore: []IgnoreRule{{Name: "a.example.com.", Type: "TXT"}, {Name: "*.example.com."}}}
	if r := z.Ignored("a.example.com.", "A"); r == nil || r.Name != "*.example.com." {
		t.Errorf("Ignored: got %+v, want the second rule", r)
	}
}

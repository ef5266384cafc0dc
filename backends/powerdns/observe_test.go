package powerdns

import (
	"testing"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends/dnsplan"
)

func TestSameValues(t *testing.T) {
	tests := []struct {
		typ        string
		live, want []string
		same       bool
	}{
		{"A", []string{"192.0.2.1"}, []string{"192.0.2.1"}, true},
		{"A", []string{"192.0.2.1"}, []string{"192.0.2.2"}, false},
		{"A", []string{"192.0.2.1"}, []string{"192.0.2.1", "192.0.2.2"}, false},
		{"AAAA", []string{"2001:db8::1"}, []string{"2001:DB8:0:0::1"}, true},
		{"CNAME", []string{"WWW.Example.org."}, []string{"www.example.org."}, true},
		{"MX", []string{"10 MX.example.org."}, []string{"10 mx.example.org."}, true},
		{"MX", []string{"20 mx.example.org."}, []string{"10 mx.example.org."}, false},
		{"TXT", []string{`"v=spf1 -all"`}, []string{`"v=spf1 -all"`}, true},
		{"TXT", []string{`"Hello"`}, []string{`"hello"`}, false},
		{"A", []string{"disabled:192.0.2.1"}, []string{"192.0.2.1"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.typ+" "+tc.live[0], func(t *testing.T) {
			if got := sameValues(tc.typ, tc.live, tc.want); got != tc.same {
				t.Errorf("got %v, want %v", got, tc.same)
			}
		})
	}
}

func TestObserveReadsOwner(t *testing.T) {
	mk := func(account, content string) []pdns.Comment {
		return []pdns.Comment{{Account: pdns.String(account), Content: pdns.String(content)}}
	}
	tests := []struct {
		name     string
		comments []pdns.Comment
		owner    string
	}{
		{"our marker", mk(MarkerAccount, Marker("office1")), "office1"},
		{"another tenant", mk(MarkerAccount, Marker("branch2")), "branch2"},
		{"someone else's account", mk("ops", Marker("office1")), ""},
		{"no comment", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			z := &pdns.Zone{RRsets: []pdns.RRset{{Name: pdns.String("a.example."), Type: pdns.RRTypePtr("A"), TTL: pdns.Uint32(1),
				Records: []pdns.Record{{Content: pdns.String("192.0.2.1")}}, Comments: tc.comments}}}
			got := observe(z).Sets[dnsplan.NameType{Name: "a.example.", Type: "A"}].Owner
			if got != tc.owner {
				t.Errorf("got %q, want %q", got, tc.owner)
			}
		})
	}
}

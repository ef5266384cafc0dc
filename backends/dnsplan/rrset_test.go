package dnsplan

import "testing"

func TestClaim(t *testing.T) {
	tests := []struct {
		owner, t, want string
	}{
		{"", "a", "a"},
		{"a", "a", "a"},
		{"b", "a", "a and b"},
		{"a and b", "b", "a and b"},
		{"a and c", "b", "a and b and c"},
	}
	for _, tt := range tests {
		if got := Claim(tt.owner, tt.t); got != tt.want {
			t.Errorf("Claim(%q, %q): got %q, want %q", tt.owner, tt.t, got, tt.want)
		}
	}
}

func TestOwnerText(t *testing.T) {
	tests := []struct {
		l    RRset
		want string
	}{
		{RRset{}, "written outside site (no owner marker)"},
		{RRset{Owner: "a"}, "owned by site tenant a"},
		{RRset{Owner: "a", Partial: true}, "owned in part by site tenant a, the rest written outside site"},
	}
	for _, tt := range tests {
		if got := tt.l.OwnerText(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

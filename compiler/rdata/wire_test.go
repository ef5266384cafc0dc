package rdata

import (
	"strings"
	"testing"
)

func TestRdataLen(t *testing.T) {
	for _, tc := range []struct {
		typ, value string
		want       int
	}{
		{"A", "192.0.2.1", 4},
		{"AAAA", "2001:db8::1", 16},
		{"CNAME", "a.example.", 11},
		{"NS", ".", 1},
		{"MX", "10 mx.example.", 2 + 12},
		{"SRV", "10 5 443 web.example.", 6 + 13},
		{"CAA", `0 issue "letsencrypt.org"`, 2 + 5 + 15},
		{"TXT", `""`, 1},
		{"TXT", `"v=spf1 -all"`, 12},
		{"TXT", TXT(strings.Repeat("x", 256)), 256 + 2},
		{"TXT", TXT(strings.Repeat("x", 65279)), 65535}, // the longest TXT string a record holds
		{"TXT", TXT(strings.Repeat("x", 65280)), 65536},
	} {
		got, err := RdataLen(tc.typ, tc.value)
		if err != nil || got != tc.want {
			t.Errorf("RdataLen(%s, %.40q): got %d, %v, want %d", tc.typ, tc.value, got, err, tc.want)
		}
	}
	if _, err := RdataLen("TXT", `"open`); err == nil {
		t.Error("RdataLen of a malformed TXT: got no error")
	}
}

func TestMessageLen(t *testing.T) {
	const name = "www.example." // 13 octets on the wire
	for _, tc := range []struct {
		typ    string
		values []string
		want   int
	}{
		{"A", []string{"192.0.2.1"}, 12 + 13 + 4 + 12 + 4},
		{"A", []string{"192.0.2.1", "192.0.2.2"}, 12 + 13 + 4 + 2*(12+4)},
		{"CNAME", []string{"a.long.target.example."}, 12 + 13 + 4 + 12 + 2},
		{"MX", []string{"10 mx.example."}, 12 + 13 + 4 + 12 + 4},
		{"TXT", []string{`"abc"`}, 12 + 13 + 4 + 12 + 4},
	} {
		got, err := MessageLen(name, tc.typ, tc.values)
		if err != nil || got != tc.want {
			t.Errorf("MessageLen(%s, %v): got %d, %v, want %d", tc.typ, tc.values, got, err, tc.want)
		}
	}
}

package rdata

import (
	"strings"
	"testing"
)

func TestA(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "192.0.2.1", want: "192.0.2.1"},
		{in: "0.0.0.0", want: "0.0.0.0"},
		{in: "255.255.255.255", want: "255.255.255.255"},
		{in: "192.0.2.01", wantErr: "not an IPv4 address"},
		{in: "192.0.2", wantErr: "not an IPv4 address"},
		{in: "256.0.0.1", wantErr: "not an IPv4 address"},
		{in: " 192.0.2.1", wantErr: "not an IPv4 address"},
		{in: "", wantErr: "not an IPv4 address"},
		{in: "2001:db8::1", wantErr: "put it under AAAA"},
		{in: "::ffff:192.0.2.1", wantErr: "put it under AAAA"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := A(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestAAAA(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "2001:db8::1", want: "2001:db8::1"},
		{in: "2001:DB8::1", want: "2001:db8::1"},
		{in: "2001:0db8:0000:0000:0000:0000:0000:0001", want: "2001:db8::1"},
		{in: "2001:db8:0:0:1:0:0:1", want: "2001:db8::1:0:0:1"},
		{in: "2001:db8::0:1", want: "2001:db8::1"},
		{in: "::1", want: "::1"},
		{in: "::", want: "::"},
		{in: "fe80::1%eth0", wantErr: "has a zone"},
		{in: "192.0.2.1", wantErr: "put it under A"},
		{in: "::ffff:192.0.2.1", wantErr: "put 192.0.2.1 under A"},
		{in: "2001:db8:::1", wantErr: "not an IPv6 address"},
		{in: "", wantErr: "not an IPv6 address"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := AAAA(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

// checkResult compares a formatter's result with the wanted value, or its
// error with a wanted substring when wantErr is set.
func checkResult(t *testing.T, got string, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil {
			t.Fatalf("got %q, want an error containing %q", got, wantErr)
		}
		if !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error: got %q, want it to contain %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

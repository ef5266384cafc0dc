package rdata

import (
	"fmt"
	"testing"
)

func TestTarget(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "mx.example.org.", want: "mx.example.org."},
		{in: "MX.Example.ORG.", want: "mx.example.org."},
		{in: "münchen.de.", want: "xn--mnchen-3ya.de."},
		{in: ".", want: "."},
		{in: "mx.example.org", wantErr: "write it absolute with a trailing dot: mx.example.org."},
		{in: "", wantErr: "empty"},
		{in: "*.example.org.", wantErr: "wildcard"},
		{in: "a..example.org.", wantErr: "two dots"},
		{in: "bad name.example.org.", wantErr: "use only letters"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Target(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestHost(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "sjc.example.net.", want: "sjc.example.net."},
		{in: "WWW.sjc.example.net.", want: "www.sjc.example.net."},
		{in: ".", wantErr: "the DNS root"},
		{in: "www", wantErr: "write it absolute with a trailing dot: www."},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Host(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestMX(t *testing.T) {
	tests := []struct {
		prio          int
		host          string
		want, wantErr string
	}{
		{prio: 10, host: "mx.example.org.", want: "10 mx.example.org."},
		{prio: 0, host: ".", want: "0 ."},
		{prio: 65535, host: "MX.example.org.", want: "65535 mx.example.org."},
		{prio: 65536, host: "mx.example.org.", wantErr: "use 0 to 65535"},
		{prio: -1, host: "mx.example.org.", wantErr: "use 0 to 65535"},
		{prio: 10, host: "mx", wantErr: "trailing dot: mx."},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.prio, tt.host), func(t *testing.T) {
			got, err := MX(tt.prio, tt.host)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			p, h, err := ParseMX(got)
			if err != nil {
				t.Fatalf("ParseMX(%q): %v", got, err)
			}
			again, err := MX(p, h)
			if err != nil || again != got {
				t.Errorf("MX(ParseMX(%q)): got %q (%v), want %q", got, again, err, got)
			}
		})
	}
}

func TestParseMX(t *testing.T) {
	tests := []struct {
		in      string
		prio    int
		host    string
		wantErr string
	}{
		{in: "10 mx.example.org.", prio: 10, host: "mx.example.org."},
		{in: "10  MX.example.org.", prio: 10, host: "mx.example.org."},
		{in: "0 .", prio: 0, host: "."},
		{in: "10", wantErr: "want \"<priority> <host>\""},
		{in: "10 mx.example.org. extra", wantErr: "want \"<priority> <host>\""},
		{in: "x mx.example.org.", wantErr: "not a decimal number"},
		{in: "010 mx.example.org.", wantErr: "not a decimal number"},
		{in: "+1 mx.example.org.", wantErr: "not a decimal number"},
		{in: "70000 mx.example.org.", wantErr: "use 0 to 65535"},
		{in: "10 mx.example.org", wantErr: "trailing dot"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, h, err := ParseMX(tt.in)
			got := fmt.Sprint(p, " ", h)
			checkResult(t, got, err, fmt.Sprint(tt.prio, " ", tt.host), tt.wantErr)
		})
	}
}

func TestSRV(t *testing.T) {
	tests := []struct {
		prio, weight, port int
		target             string
		want, wantErr      string
	}{
		{10, 5, 443, "t.example.org.", "10 5 443 t.example.org.", ""},
		{0, 0, 0, ".", "0 0 0 .", ""},
		{65535, 65535, 65535, "T.example.org.", "65535 65535 65535 t.example.org.", ""},
		{-1, 5, 443, "t.example.org.", "", "SRV priority -1 is out of range"},
		{10, 65536, 443, "t.example.org.", "", "SRV weight 65536 is out of range"},
		{10, 5, 70000, "t.example.org.", "", "SRV port 70000 is out of range"},
		{10, 5, 443, "t", "", "SRV target: target \"t\" is relative"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.prio, tt.weight, tt.port, tt.target), func(t *testing.T) {
			got, err := SRV(tt.prio, tt.weight, tt.port, tt.target)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			p, w, port, target, err := ParseSRV(got)
			if err != nil {
				t.Fatalf("ParseSRV(%q): %v", got, err)
			}
			again, err := SRV(p, w, port, target)
			if err != nil || again != got {
				t.Errorf("SRV(ParseSRV(%q)): got %q (%v), want %q", got, again, err, got)
			}
		})
	}
}

func TestParseSRV(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "10 5 443 t.example.org.", want: "10 5 443 t.example.org."},
		{in: "0 0 0 .", want: "0 0 0 ."},
		{in: "10 5 443", wantErr: "want \"<priority> <weight> <port> <target>\""},
		{in: "10 5 x t.example.org.", wantErr: "SRV port \"x\" is not a decimal number"},
		{in: "10 5 443 t.example.org", wantErr: "trailing dot"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, w, port, target, err := ParseSRV(tt.in)
			got := fmt.Sprintf("%d %d %d %s", p, w, port, target)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

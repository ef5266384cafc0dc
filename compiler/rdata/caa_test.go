package rdata

import (
	"fmt"
	"testing"
)

func TestCAA(t *testing.T) {
	tests := []struct {
		flags         int
		tag, value    string
		want, wantErr string
	}{
		{0, "issue", "letsencrypt.org", `0 issue "letsencrypt.org"`, ""},
		{128, "issuewild", ";", `128 issuewild ";"`, ""},
		{0, "iodef", "mailto:security@example.org", `0 iodef "mailto:security@example.org"`, ""},
		{0, "ISSUE", "ca.example", `0 issue "ca.example"`, ""},
		{0, "issue", "", `0 issue ""`, ""},
		{0, "issue", `a "b"`, `0 issue "a \"b\""`, ""},
		{256, "issue", "ca.example", "", "use 0 to 255"},
		{-1, "issue", "ca.example", "", "use 0 to 255"},
		{0, "", "ca.example", "", "tag is empty"},
		{0, "is-sue", "ca.example", "", "use only letters and digits"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.flags, tt.tag, tt.value), func(t *testing.T) {
			got, err := CAA(tt.flags, tt.tag, tt.value)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			f, tag, v, err := ParseCAA(got)
			if err != nil {
				t.Fatalf("ParseCAA(%q): %v", got, err)
			}
			if f != tt.flags || v != tt.value {
				t.Errorf("ParseCAA(%q): got %d %q %q, want %d %q", got, f, tag, v, tt.flags, tt.value)
			}
			if again, err := CAA(f, tag, v); err != nil || again != got {
				t.Errorf("CAA(ParseCAA(%q)): got %q (%v), want %q", got, again, err, got)
			}
		})
	}
}

func TestParseCAA(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: `0 issue "letsencrypt.org"`, want: `0|issue|letsencrypt.org`},
		{in: `0 ISSUE "letsencrypt.org"`, want: `0|issue|letsencrypt.org`},
		{in: `0 issue letsencrypt.org`, want: `0|issue|letsencrypt.org`},
		{in: `0 issue "a b"`, want: `0|issue|a b`},
		{in: `0 issue`, wantErr: "want `<flags> <tag>"},
		{in: `0 issue "a" "b"`, wantErr: "want `<flags> <tag>"},
		{in: `256 issue "a"`, wantErr: "not a number from 0 to 255"},
		{in: `01 issue "a"`, wantErr: "not a number from 0 to 255"},
		{in: `x issue "a"`, wantErr: "not a number from 0 to 255"},
		{in: `0 is_sue "a"`, wantErr: "use only letters and digits"},
		{in: `0 issue "a`, wantErr: "not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, tag, v, err := ParseCAA(tt.in)
			checkResult(t, fmt.Sprintf("%d|%s|%s", f, tag, v), err, tt.want, tt.wantErr)
		})
	}
}

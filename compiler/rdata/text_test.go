package rdata

import (
	"strings"
	"testing"
)

func TestTXT(t *testing.T) {
	a255 := strings.Repeat("a", 255)
	tests := []struct {
		name, in, want string
	}{
		{"plain", "v=spf1 -all", `"v=spf1 -all"`},
		{"empty", "", `""`},
		{"quote", `say "hi"`, `"say \"hi\""`},
		{"backslash", `a\b`, `"a\\b"`},
		{"newline", "a\nb", `"a\010b"`},
		{"nul", "a\x00b", `"a\000b"`},
		{"del", "a\x7fb", `"a\127b"`},
		{"utf-8", "café", `"caf\195\169"`},
		{"255 octets", a255, `"` + a255 + `"`},
		{"256 octets", a255 + "b", `"` + a255 + `" "b"`},
		{"split by octets before escaping", strings.Repeat("a", 254) + `""`, `"` + strings.Repeat("a", 254) + `\"" "\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TXT(tt.in)
			if got != tt.want {
				t.Errorf("TXT(%q): got %q, want %q", tt.in, got, tt.want)
			}
			back, err := ParseTXT(got)
			if err != nil {
				t.Fatalf("ParseTXT(%q): %v", got, err)
			}
			if back != tt.in {
				t.Errorf("ParseTXT(TXT(%q)): got %q, want %q", tt.in, back, tt.in)
			}
		})
	}
}

func TestParseTXT(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: `"v=spf1 -all"`, want: "v=spf1 -all"},
		{in: `"ab" "cd"`, want: "abcd"},
		{in: "\"ab\"\t\"cd\"", want: "abcd"},
		{in: `  "ab"  `, want: "ab"},
		{in: `hello`, want: "hello"},
		{in: `hello world`, want: "helloworld"},
		{in: `"a\"b"`, want: `a"b`},
		{in: `"a\\b"`, want: `a\b`},
		{in: `"\065\066"`, want: "AB"},
		{in: `"\255"`, want: "\xff"},
		{in: `"\x"`, want: "x"},
		{in: `""`, want: ""},
		{in: ``, wantErr: "holds no string"},
		{in: `   `, wantErr: "holds no string"},
		{in: `"abc`, wantErr: "not closed"},
		{in: `"ab"cd`, wantErr: "text follows a closing quote"},
		{in: `ab"cd"`, wantErr: "a quote inside an unquoted string"},
		{in: `"ab\`, wantErr: "a backslash ends the text"},
		{in: `"\25"`, wantErr: "needs three digits"},
		{in: `"\2"`, wantErr: "needs three digits"},
		{in: `"\256"`, wantErr: "not an octet"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTXT(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
		})
	}
}

// TestTXTStrings pins the list form of a TXT record: each string one
// character-string, boundaries kept both ways.
func TestTXTStrings(t *testing.T) {
	a255 := strings.Repeat("a", 255)
	tests := []struct {
		name    string
		in      []string
		want    string
		wantErr string
	}{
		{"two strings", []string{"part one", "part two"}, `"part one" "part two"`, ""},
		{"one string", []string{"v=spf1 -all"}, `"v=spf1 -all"`, ""},
		{"empty strings kept", []string{"", "x", ""}, `"" "x" ""`, ""},
		{"escapes", []string{`a"b`, "c\\d"}, `"a\"b" "c\\d"`, ""},
		{"255 octets", []string{a255, "b"}, `"` + a255 + `" "b"`, ""},
		{"256 octets", []string{a255 + "b"}, "", "string 1 of the TXT record is 256 octets"},
		{"none", nil, "", "needs at least one string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TXTStrings(tt.in)
			checkResult(t, got, err, tt.want, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			back, err := ParseTXTStrings(got)
			if err != nil {
				t.Fatalf("ParseTXTStrings(%q): %v", got, err)
			}
			if strings.Join(back, "|") != strings.Join(tt.in, "|") || len(back) != len(tt.in) {
				t.Errorf("ParseTXTStrings(TXTStrings(%q)): got %q", tt.in, back)
			}
		})
	}
}

func BenchmarkTXT(b *testing.B) {
	dkim := "v=DKIM1; k=rsa; p=" + strings.Repeat("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseTXT(TXT(dkim)); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzTXT checks that any string survives TXT and ParseTXT unchanged, and
// that any text ParseTXT accepts has one canonical form.
func FuzzTXT(f *testing.F) {
	for _, s := range []string{
		"v=spf1 -all", "", `"`, `\`, "\x00", "café", strings.Repeat("x", 300),
		`"ab" "cd"`, `\065`, `"\256"`, `a"b`, "\t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseTXT(TXT(s))
		if err != nil {
			t.Fatalf("ParseTXT(TXT(%q)): %v", s, err)
		}
		if got != s {
			t.Fatalf("ParseTXT(TXT(%q)): got %q", s, got)
		}
		if v, err := ParseTXT(s); err == nil {
			canon := TXT(v)
			if again, err := Normalize("TXT", canon); err != nil || again != canon {
				t.Fatalf("Normalize(TXT(ParseTXT(%q))): got %q (%v), want %q", s, again, err, canon)
			}
		}
	})
}

package dnsname

import (
	"strings"
	"testing"
)

func TestMixedScripts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wantErr string // "" for a name that is accepted
	}{
		{"paypal.example.", ""},
		{"münchen.example.", ""},                    // Latin with a diacritic
		{"москва.example.", ""},                     // Cyrillic alone
		{"ελλάδα.example.", ""},                     // Greek alone
		{"日本語.example.", ""},                        // Han
		{"ひらがなカタカナ漢字abc.example.", ""},              // Japanese: Hiragana, Katakana, Han, Latin
		{"中文abc.example.", ""},                      // Chinese with Latin
		{"한국어abc.example.", ""},                     // Hangul with Latin
		{"한국漢字.example.", ""},                       // Korean: Hangul and Han
		{"москва-2024.example.", ""},                // Common digits and hyphen go with any script
		{"p\u0430ypal.example.", "Cyrillic, Latin"}, // Cyrillic а in Latin
		{"\u03bfpen.example.", "Greek, Latin"},      // Greek ο in Latin
		{"xn--pypal-4ve.example.", "Cyrillic, Latin"},
		{"москваmoscow.example.", "Cyrillic, Latin"},
		{"한국ひらがな.example.", "Hangul, Hiragana"},
		{"ελλάδαмосква.example.", "Cyrillic, Greek"},
		{"a.p\u0430ypal.example.", "Cyrillic, Latin"}, // any label, not only the first
		{"\U0001F600.example.", "symbol"},
		{"i\u2665you.example.", "symbol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Canonical(tc.name, "")
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tc.wantErr == "symbol" && (err == nil || !strings.Contains(err.Error(), "holds the symbol")):
				t.Fatalf("got %v, want an error naming the symbol", err)
			case tc.wantErr != "" && tc.wantErr != "symbol" && (err == nil || !strings.Contains(err.Error(), "mixes the scripts "+tc.wantErr+",")):
				t.Fatalf("got %v, want an error naming %s", err, tc.wantErr)
			}
		})
	}
}

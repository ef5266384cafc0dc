package main

import "testing"

// A ratio printed beside its target must not read as the target when
// the verdict says it was missed.
func TestRatioTextAgreesWithTheVerdict(t *testing.T) {
	for _, c := range []struct {
		r       row
		text    string
		verdict string
	}{
		{row{ratio: 1.003, unit: "memory", target: 1}, "1.003× memory", "NOT MET"},
		{row{ratio: 0.998, unit: "memory", target: 1}, "1.00× memory", "met"},
		{row{ratio: 2.9204, unit: "wall", target: 2}, "2.92× wall", "NOT MET"},
		{row{ratio: 1.5, unit: "wall"}, "1.50× wall", ""},
		{row{ratio: 2.4, label: "2.40× site's diff"}, "2.40× site's diff", ""},
	} {
		if got := c.r.ratioText(); got != c.text {
			t.Errorf("%+v: ratio text %q, want %q", c.r, got, c.text)
		}
		if got := c.r.verdict(); got != c.verdict {
			t.Errorf("%+v: verdict %q, want %q", c.r, got, c.verdict)
		}
	}
}

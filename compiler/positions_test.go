package compiler

import (
	"slices"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestPositionsPos: an element the user wrote is at its own position;
// one they did not, or one CUE gave no position, is at its nearest
// written ancestor's; with none, at the start of the file.
func TestPositionsPos(t *testing.T) {
	p := &positions{file: "t.cue", at: map[string]lineCol{
		"tenants":                 {1, 1},
		"tenants\x00t":            {2, 3},
		"tenants\x00t\x00dns":     {0, 0},
		"tenants\x00t\x00domainX": {9, 9},
		"tenants\x00ü\x00x":       {5, 7},
		"other":                   {4, 1},
	}}
	for _, c := range []struct {
		path []string
		want [2]int
	}{
		{[]string{"tenants", "t"}, [2]int{2, 3}},
		{[]string{"tenants", "t", "domain"}, [2]int{2, 3}},
		{[]string{"tenants", "t", "dns", "zones", "z"}, [2]int{2, 3}},
		{[]string{"tenants", "ü", "x"}, [2]int{5, 7}},
		{[]string{"tenants", "nobody", "x"}, [2]int{1, 1}},
		{[]string{"other"}, [2]int{4, 1}},
		{[]string{"missing", "t"}, [2]int{1, 1}},
		{nil, [2]int{1, 1}},
	} {
		want := model.Pos{File: "t.cue", Line: c.want[0], Col: c.want[1]}
		if got := p.pos(c.path...); got != want {
			t.Errorf("pos(%q) = %v, want %v", c.path, got, want)
		}
	}
}

// TestSplitCuePath: a path cuePath rendered splits back into the same
// segments, whatever they hold (dots, quotes, "@", numbers), and a
// string cuePath cannot have rendered is refused.
func TestSplitCuePath(t *testing.T) {
	for _, segs := range [][]string{
		{"dns", "zones", "acme.example", "records", "@"},
		{"dns", "zones", "0.192.in-addr.arpa", "records", "0/26.2"},
		{"records", `a"b.c`, "_dmarc", "7", "ü"},
		{""},
	} {
		p := cuePath(segs...)
		got, ok := splitCuePath(p)
		if !ok || !slices.Equal(got, segs) {
			t.Errorf("splitCuePath(%q) = %q, %v, want %q", p, got, ok, segs)
		}
	}
	for _, p := range []string{`"open`, `a..b`, `a.`, `"x"y`} {
		if got, ok := splitCuePath(p); ok {
			t.Errorf("splitCuePath(%q) = %q, want refused", p, got)
		}
	}
}

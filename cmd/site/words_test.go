package main

import "testing"

func TestCountPlurals(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "entry", "1 entry"},
		{2, "entry", "2 entries"},
		{0, "zone", "0 zones"},
		{3, "key", "3 keys"},
		{1, "step", "1 step"},
	} {
		if got := count(c.n, c.noun); got != c.want {
			t.Errorf("count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

// Package spelling finds the word a misspelt one most likely meant, for
// the "did you mean ...?" of site's messages: a field the schema does not
// allow where it was written, a gate --ack does not know, a phase --only
// does not know (a plural such as vms means vm). It is one rule in one
// place, so that every such hint suggests alike.
package spelling

import "strings"

// Nearest returns the word of known that s most likely meant, or ""
// when none is near enough to suggest without misleading. Case aside,
// it is the word fewest edits away (an insertion, a deletion, a change
// or two neighbours swapped each count one), when those are at most a
// third of its length and no other word is as near; failing that, the
// word s is the plural of (vms for vm: one edit, but too many for so
// short a word, and the commonest slip with names of kinds); failing
// that, the only word that s, three or more letters long, begins. A
// word equal to s, case aside, is returned as it is spelt in known.
func Nearest(s string, known []string) string {
	lower := strings.ToLower(s)
	best, bestD, tie := "", -1, false
	for _, w := range known {
		d := distance(lower, strings.ToLower(w))
		switch {
		case bestD < 0 || d < bestD:
			best, bestD, tie = w, d, false
		case d == bestD && w != best:
			tie = true
		}
	}
	// The third is of the word as distance read it: lower case can be
	// shorter (KELVIN SIGN, three bytes, is k).
	if bestD >= 0 && !tie && bestD*3 <= len(strings.ToLower(best)) {
		return best
	}
	if one, ok := strings.CutSuffix(lower, "s"); ok && one != "" {
		for _, w := range known {
			if strings.ToLower(w) == one {
				return w
			}
		}
	}
	if len(s) < 3 {
		return ""
	}
	prefixed := ""
	for _, w := range known {
		if strings.HasPrefix(strings.ToLower(w), lower) && w != prefixed {
			if prefixed != "" {
				return ""
			}
			prefixed = w
		}
	}
	return prefixed
}

// distance is the optimal string alignment distance between a and b,
// in bytes (field names and gate ids are ASCII): Levenshtein's, with a
// swap of two neighbours as one edit, the commonest slip of typing
// (tll for ttl, domian for domain).
func distance(a, b string) int {
	// rows i-2, i-1 and i of the table
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

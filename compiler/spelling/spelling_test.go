package spelling

import (
	"slices"
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	vm := []string{"host", "autostart", "running", "vcpus", "memory", "disks", "nics", "cloudinit", "publish"}
	name := []string{"ttl", "proxied", "A", "AAAA", "CNAME", "TXT", "MX", "SRV", "CAA", "NS", "PTR"}
	gates := []string{"GATE-DNS-OVERWRITE", "GATE-DNS-DELETE-MANY", "GATE-VM-RESTART", "GATE-VM-STOP", "GATE-VM-DESTROY"}
	for _, tc := range []struct {
		s     string
		known []string
		want  string
	}{
		{"tll", name, "ttl"},           // a swap is one edit
		{"tl", name, "ttl"},            // a letter missing
		{"TTL", name, "ttl"},           // case aside
		{"vcpu", vm, "vcpus"},          // a letter missing at the end
		{"autostrat", vm, "autostart"}, // a swap
		{"mem", vm, "memory"},          // too far, but the only word it begins
		{"colour", vm, ""},             // nothing near
		{"ho", vm, ""},                 // too short to be a prefix worth suggesting
		{"CNAM", name, "CNAME"},        // one edit in five letters
		{"AA", name, ""},               // A is one edit away, but A has one letter
		{"x", name, ""},                // one edit from A, MX and NS alike
		{"GATE-VM-STPO", gates, "GATE-VM-STOP"},
		{"GATE-VM", gates, ""}, // begins three: none is the one
		{"gate-dns-overwrit", gates, "GATE-DNS-OVERWRITE"},
		// A plural of a short word: too many edits for its length, but
		// an s too many is the slip.
		{"vms", []string{"secrets", "network", "storage", "vm", "dns"}, "vm"},
		{"As", name, "A"},
		{"s", name, ""}, // the plural of nothing
		{"", name, ""},
		{"ttl", nil, ""},
	} {
		if got := Nearest(tc.s, tc.known); got != tc.want {
			t.Errorf("Nearest(%q, %q): got %q, want %q", tc.s, tc.known, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"tll", "ttl", 1},
		{"domian", "domain", 1},
		{"recods", "records", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q): got %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance(tc.b, tc.a); got != tc.want {
			t.Errorf("distance(%q, %q): got %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func BenchmarkNearest(b *testing.B) {
	name := []string{"ttl", "proxied", "A", "AAAA", "CNAME", "TXT", "MX", "SRV", "CAA", "NS", "PTR", "SSHFP", "TLSA", "HTTPS", "SVCB", "NAPTR", "DS", "DNAME", "OPENPGPKEY", "DHCID", "ALIAS"}
	for b.Loop() {
		Nearest("proxyed", name)
	}
}

// FuzzNearest holds Nearest to its rule for any word and any three
// known words: it suggests one of them or none; one fewest edits away
// only within a third of its length, else the word s is the plural of,
// else the one word s begins; and it reads s case aside and known in
// any order. The distance it counts by is symmetric.
func FuzzNearest(f *testing.F) {
	f.Add("tll", "ttl", "proxied", "A")
	f.Add("vcpu", "vcpus", "memory", "disks")
	f.Add("mem", "memory", "host", "nics")
	f.Add("vms", "vm", "dns", "network")
	f.Add("As", "A", "AAAA", "MX")
	f.Add("x", "A", "MX", "NS")
	f.Add("GATE-VM", "GATE-VM-STOP", "GATE-VM-RESTART", "GATE-VM-DESTROY")
	f.Add("ca", "abc", "", "ca")
	f.Add("", "", "ttl", "TTL")
	f.Add("x", "\u212a", "ttl", "proxied") // KELVIN SIGN, three bytes, lowers to k
	f.Fuzz(func(t *testing.T, s, a, b, c string) {
		known := []string{a, b, c}
		if d, e := distance(s, a), distance(a, s); d != e {
			t.Fatalf("distance(%q, %q) = %d, but %d the other way", s, a, d, e)
		}
		got := Nearest(s, known)
		if got == "" {
			return
		}
		if !slices.Contains(known, got) {
			t.Fatalf("Nearest(%q, %q) = %q, not a known word", s, known, got)
		}
		lower, w := strings.ToLower(s), strings.ToLower(got)
		near := distance(lower, w)*3 <= len(w)
		plural := lower == w+"s"
		prefix := len(s) >= 3 && strings.HasPrefix(w, lower)
		if !near && !plural && !prefix {
			t.Fatalf("Nearest(%q, %q) = %q, %d edits away, which no rule allows", s, known, got, distance(lower, w))
		}
		// Case aside and in any order, where the known words are
		// distinct case aside (else which is meant is a toss-up).
		if la, lb, lc := strings.ToLower(a), strings.ToLower(b), strings.ToLower(c); la == lb || lb == lc || la == lc {
			return
		}
		if r := Nearest(s, []string{c, b, a}); r != got {
			t.Fatalf("Nearest(%q, %q) = %q, but %q with the words reversed", s, known, got, r)
		}
		if r := Nearest(strings.ToUpper(s), known); r != got && strings.ToLower(strings.ToUpper(s)) == lower {
			t.Fatalf("Nearest(%q, %q) = %q, but %q in upper case", s, known, got, r)
		}
	})
}

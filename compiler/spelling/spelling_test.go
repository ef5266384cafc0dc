package spelling

import "testing"

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

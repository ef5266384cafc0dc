// This file holds what vet accepts of a VM's sizes and user data.

package compiler

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// minVMMemory is the least memory site vet lets a VM have. libvirt
// takes any size and leaves the floor to the hypervisor ("some
// hypervisors also enforce a minimum, such as 4000KiB", formatdomain's
// memory element), and QEMU starts a guest with too little only to see
// its firmware or kernel fail to load or hang, with no word of memory
// (kata-containers/runtime#3046: -m 8M). 64MiB is what the smallest
// cloud test image, CirrOS, boots in (OpenStack's m1.nano flavour) and
// what the tiny guests of reference/libvirt.md run in under real QEMU.
const minVMMemory = 64 << 20

// cloudInitReads reports whether cloud-init acts on user data: one
// beginning (case and leading white space aside) with a header its
// handlers know (cloudinit/handlers INCLUSION_TYPES_MAP: #cloud-config,
// and its -archive and -jsonp forms, #!, #include and #include-once,
// #cloud-boothook, #part-handler, #upstart-job, "## template: jinja"),
// or a MIME message ("mime-version:" within its first 4096 bytes, as
// cloudinit/user_data.py looks for it). Anything else is logged as
// "Unhandled non-multipart userdata" on the guest and otherwise
// ignored. Empty user data asks for nothing and is not warned of.
func cloudInitReads(userData string) bool {
	lower := strings.ToLower(strings.TrimLeft(userData, " \t\r\n"))
	if lower == "" || strings.Contains(strings.ToLower(userData[:min(len(userData), 4096)]), "mime-version:") {
		return true
	}
	for _, h := range []string{"#cloud-config", "#!", "#include", "#cloud-boothook", "#part-handler", "#upstart-job", "## template: jinja"} {
		if strings.HasPrefix(lower, h) {
			return true
		}
	}
	return false
}

var sizeUnits = map[string]uint64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// ParseSize reads a size with a binary unit, "512MiB" or "2GiB", as specs
// write VM memory and disk sizes and site --eval-memory takes a budget.
func ParseSize(s string) (uint64, error) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i <= 0 {
		return 0, fmt.Errorf("size %q: write a number and a unit, like \"512MiB\" or \"2GiB\"", s)
	}
	unit, ok := sizeUnits[s[i:]]
	if !ok {
		return 0, fmt.Errorf("size %q: the unit must be KiB, MiB, GiB or TiB", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil || n == 0 || n > (1<<64-1)/unit {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return n * unit, nil
}

// inFileOrder sorts the keys of the map at path in the order the user
// wrote them, so that of two spellings of one name the later one is
// reported. Keys the user did not write (from a comprehension) go last,
// by name.
func (b *builder) inFileOrder(path []string, keys []string) []string {
	type keyed struct {
		key       string
		line, col int
	}
	ks := make([]keyed, len(keys))
	// One lookup per key, its index key built from the prefix joined
	// once (a 10,000-name zone made this a tenth of a cached load), in
	// a buffer: a lookup by string(key) copies nothing.
	key := []byte(strings.Join(path, pathSep) + pathSep)
	prefix := len(key)
	for i, k := range keys {
		ks[i] = keyed{key: k, line: 1 << 30}
		key = append(key[:prefix], k...)
		lc, ok := b.pos.at[string(key)]
		switch {
		case ok && lc[0] > 0:
			ks[i].line, ks[i].col = lc[0], lc[1]
		case ok: // written where CUE knew no position: its nearest ancestor's
			pos := b.pos.pos(at(path, k)...)
			ks[i].line, ks[i].col = pos.Line, pos.Col
		}
	}
	// Keys at one position (none the user wrote) go in name order, so
	// keys may come in any order: one sort, not a sort by name first.
	slices.SortFunc(ks, func(x, y keyed) int {
		return cmp.Or(cmp.Compare(x.line, y.line), cmp.Compare(x.col, y.col), strings.Compare(x.key, y.key))
	})
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.key
	}
	return out
}

func sortRRsets(rs []*model.RRset) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Name != rs[j].Name {
			return rs[i].Name < rs[j].Name
		}
		return rs[i].Type < rs[j].Type
	})
}

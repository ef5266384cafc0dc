package compiler

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strings"
)

// A cache entry's body is four sections, each a uvarint length and its
// bytes: the file's path; its tenants with every zone's records left
// out, and its diagnostics, as JSON (metaEntry); the position index
// (packPositions); and the records of every zone, in the order they
// were written (packRecords). The records and the index are nearly all
// of a big file's entry, and read back as JSON they cost a cached load
// of 10,000 records more than building its model: read from this
// layout, they cost a fraction. An entry that does not read back
// whole, to its last byte, is a miss.
type metaEntry struct {
	Tenants map[string]*rawTenant `json:"tenants"`
	Diags   Diagnostics           `json:"diags"`
	// Strings is what withinStrings counted, read back so that a cache
	// hit is held to the strings budget without walking its tenants.
	Strings uint64 `json:"strings,omitempty"`
}

func encodeEntry(r *fileResult) ([]byte, error) {
	meta, err := json.Marshal(metaEntry{Tenants: withoutRecords(r.tenants), Diags: r.diags, Strings: r.strings})
	if err != nil {
		return nil, err
	}
	recs, err := packRecords(r.tenants, r.pos)
	if err != nil {
		return nil, err
	}
	var w entryWriter
	for _, section := range [][]byte{[]byte(r.path), meta, packPositions(r.pos.at), recs} {
		w.bytes(section)
	}
	return w.b, nil
}

// decodeEntry reads a body encodeEntry wrote for the file at path, or
// reports false. meta, when not nil, is given the result without its
// positions and records, before those are read.
func decodeEntry(body []byte, path string, meta func(*fileResult)) (*fileResult, bool) {
	var sections [4][]byte
	for i := range sections {
		n, size := binary.Uvarint(body)
		if size <= 0 || n > uint64(len(body)-size) {
			return nil, false
		}
		sections[i], body = body[size:size+int(n)], body[size+int(n):]
	}
	if len(body) > 0 || string(sections[0]) != path {
		return nil, false
	}
	var m metaEntry
	if err := json.Unmarshal(sections[1], &m); err != nil {
		return nil, false
	}
	if meta != nil {
		meta(&fileResult{path: path, pos: &positions{file: path}, tenants: m.Tenants, diags: m.Diags, strings: m.Strings})
	}
	at, ok := unpackPositions(sections[2])
	if !ok || !unpackRecords(string(sections[3]), m.Tenants) {
		return nil, false
	}
	return &fileResult{path: path, pos: &positions{file: path, at: at}, tenants: m.Tenants, diags: m.Diags, strings: m.Strings}, true
}

// withoutRecords copies tenants down to their zones, leaving out every
// zone's records, which packRecords stores; the result in hand keeps
// its own.
func withoutRecords(tenants map[string]*rawTenant) map[string]*rawTenant {
	out := make(map[string]*rawTenant, len(tenants))
	for name, t := range tenants {
		if t == nil || t.DNS == nil {
			out[name] = t
			continue
		}
		c, dns := *t, *t.DNS
		dns.Zones = make(map[string]*rawZone, len(t.DNS.Zones))
		for zname, z := range t.DNS.Zones {
			if z != nil {
				zc := *z
				zc.Records = nil
				z = &zc
			}
			dns.Zones[zname] = z
		}
		c.DNS = &dns
		out[name] = &c
	}
	return out
}

// packPositions writes a position index as, for each key in sorted
// order, the length of the prefix it shares with the key before, the
// rest of the key's length and bytes, then line and column, each number
// a uvarint: sorted paths share most of their bytes (a record's path
// repeats its tenant's, zone's and name's), so a 10,000-record index
// packs into a tenth of its keys' size. Keys are sorted, so that one
// result is always the same bytes.
func packPositions(at map[string]lineCol) []byte {
	var b []byte
	prev := ""
	for _, key := range slices.Sorted(maps.Keys(at)) {
		lc := at[key]
		n := 0
		for n < len(prev) && n < len(key) && prev[n] == key[n] {
			n++
		}
		b = binary.AppendUvarint(b, uint64(n))
		b = binary.AppendUvarint(b, uint64(len(key)-n))
		b = append(b, key[n:]...)
		b = binary.AppendUvarint(b, uint64(lc[0]))
		b = binary.AppendUvarint(b, uint64(lc[1]))
		prev = key
	}
	return b
}

// unpackPositions reads packPositions' index back. A first pass checks
// it and counts its keys and their bytes; the second spells every key
// out into one buffer, and the map's keys are slices of it: a string
// per key, and a map grown as it filled, were most of the reading.
func unpackPositions(b []byte) (map[string]lineCol, bool) {
	var (
		count, size int
		last        int // length of the key before
	)
	ok := walkPositions(b, func(shared int, rest []byte, lc lineCol) bool {
		if shared > last {
			return false
		}
		last = shared + len(rest)
		count++
		size += last
		return true
	})
	if !ok {
		return nil, false
	}
	var keys strings.Builder
	keys.Grow(size)
	at := make(map[string]lineCol, count)
	start := 0 // of the key before, in keys
	walkPositions(b, func(shared int, rest []byte, lc lineCol) bool {
		all := keys.String()
		keys.WriteString(all[start : start+shared])
		keys.Write(rest)
		start = len(all)
		at[keys.String()[start:]] = lc
		return true
	})
	return at, true
}

// walkPositions calls f with each entry of a packed index, and reports
// whether the index is whole and f accepted every entry.
func walkPositions(b []byte, f func(shared int, rest []byte, lc lineCol) bool) bool {
	next := func() (int, bool) {
		n, size := binary.Uvarint(b)
		if size <= 0 || n > math.MaxInt32 {
			return 0, false
		}
		b = b[size:]
		return int(n), true
	}
	for len(b) > 0 {
		shared, ok1 := next()
		n, ok2 := next()
		if !ok1 || !ok2 || n > len(b) {
			return false
		}
		rest := b[:n]
		b = b[n:]
		line, ok1 := next()
		col, ok2 := next()
		if !ok1 || !ok2 || !f(shared, rest, lineCol{line, col}) {
			return false
		}
	}
	return true
}

// entryWriter appends the numbers and strings of an entry's sections.
// file, when set, is the file the entry is of (writePos).
type entryWriter struct {
	b    []byte
	file string
}

func (w *entryWriter) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *entryWriter) int(n int64)   { w.b = binary.AppendVarint(w.b, n) }
func (w *entryWriter) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *entryWriter) bytes(b []byte) {
	w.uint(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *entryWriter) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

// entryReader reads what entryWriter wrote from a string, so that the
// strings it returns are slices of it rather than copies. Once a read
// fails, ok is false and every later read returns zero values.
type entryReader struct {
	s    string
	ok   bool
	file string // the file the entry is of (readPos)
	// slab is where strs carves its lists from: most names hold a
	// list of one string, and a list each was most of the allocations
	// left in reading the records.
	slab []string
}

func (r *entryReader) uint() uint64 {
	var n uint64
	for shift := uint(0); r.ok && len(r.s) > 0 && shift < 64; shift += 7 {
		c := r.s[0]
		r.s = r.s[1:]
		if c < 0x80 {
			if shift == 63 && c > 1 {
				break // past 64 bits
			}
			return n | uint64(c)<<shift
		}
		n |= uint64(c&0x7f) << shift
	}
	r.ok = false
	return 0
}

// int reads a zig-zag varint, as binary.AppendVarint writes it.
func (r *entryReader) int() int64 {
	u := r.uint()
	n := int64(u >> 1)
	if u&1 != 0 {
		n = ^n
	}
	return n
}

// count reads the length of a list. Every element takes a byte at
// least, so a count past the bytes left is damage, not a list to
// allocate.
func (r *entryReader) count() int {
	n := r.uint()
	if n > uint64(len(r.s)) {
		r.ok = false
		return 0
	}
	return int(n)
}

func (r *entryReader) str() string {
	n := r.count()
	if !r.ok {
		return ""
	}
	s := r.s[:n]
	r.s = r.s[n:]
	return s
}

// strs reads a list of strings. The list is capped at its length, so
// that appending to it copies rather than writes over the next one.
func (r *entryReader) strs() []string {
	n := r.count()
	// A slice of a nil slab is nil, and A: [] must read back empty.
	if r.slab == nil || len(r.slab)+n > cap(r.slab) {
		r.slab = make([]string, 0, max(n, 1024))
	}
	out := r.slab[len(r.slab) : len(r.slab)+n : len(r.slab)+n]
	r.slab = r.slab[:len(r.slab)+n]
	for i := range out {
		out[i] = r.str()
	}
	return out
}

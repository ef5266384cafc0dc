package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// everyField is a name that sets every record type, lists of several
// values and of none, so that a field the entry's layout forgets, or
// reads back changed, shows.
func everyField() *rawName {
	ttl, proxied := int64(-300), true
	cname, dname, alias := "c.example.", "d.example.", "a.example."
	return &rawName{
		TTL: &ttl, Proxied: &proxied,
		A: []string{"192.0.2.1", "192.0.2.2"}, AAAA: []string{},
		CNAME: &cname,
		TXT:   []rawTXT{{Text: "one"}, {Parts: []string{"a", "b"}}, {Parts: []string{}}, {Text: ""}},
		MX:    []rawMX{{Priority: 10, Host: "mx.example."}, {}},
		SRV:   []rawSRV{{Priority: 1, Weight: 2, Port: 443, Target: "t.example."}},
		CAA:   []rawCAA{{Flags: 128, Tag: "issue", Value: "ca.example"}},
		NS:    []string{"ns1.example."}, PTR: []string{"p.example."},
		SSHFP: []rdataFields{{"algorithm": int64(4), "type": int64(2), "fingerprint": "ab"}},
		TLSA:  []rdataFields{{"usage": new(big.Int).Lsh(big.NewInt(1), 70)}, nil},
		HTTPS: []rdataFields{{"priority": 1.0, "target": ".", "params": map[string]any{"alpn": []any{"h2", int64(3)}}}},
		SVCB:  []rdataFields{}, NAPTR: []rdataFields{{"order": 1.5}}, DS: []rdataFields{{"digest": "00"}},
		DNAME: &dname, OPENPGPKEY: []string{"key"}, DHCID: []string{""}, ALIAS: &alias,
		TTLs: map[string]int64{"MX": 3600, "A": -1}, LOC: []string{"52 N 1 E 10m"},
		URI: []rdataFields{{"priority": int64(1), "target": "https://x.example/"}}, CERT: []rdataFields{{"type": int64(1)}},
		SMIMEA: []rdataFields{}, HINFO: []rdataFields{{"cpu": "x", "os": ""}}, RP: []rdataFields{{"mbox": "."}},
	}
}

// entryFixture is an evaluation result with a bit of everything an
// entry holds.
func entryFixture() *fileResult {
	zone := func(records map[string]*rawName) *rawZone {
		return &rawZone{Provider: providerNames{"pdns"}, TTL: 60, Records: records}
	}
	tenants := map[string]*rawTenant{
		"t": {Domain: "t.example", DNS: &rawDNS{Zones: map[string]*rawZone{
			"t.example": zone(map[string]*rawName{
				// The first list read, empty: its reader starts with no slab.
				"_first": {A: []string{}},
				"all":    everyField(), "none": {}, "null": nil, "ünï": {A: []string{"192.0.2.9"}}}),
			"empty.test":  zone(map[string]*rawName{}),
			"absent.test": zone(nil),
		}}},
		"u":     {Domain: "u.example", Networks: map[string]*rawNetwork{"n": {Host: "h", CIDR: "10.0.0.0/24"}}},
		"nodns": nil,
	}
	// The records of t.example written in an order of their own.
	records := "tenants\x00t\x00dns\x00zones\x00t.example\x00records\x00"
	pos := &positions{file: "t/t.cue", at: map[string]lineCol{"tenants": {1, 1}, "tenants\x00t": {1, 10},
		records + "null": {3, 5}, records + "all": {4, 5}, records + "_first": {4, 2}, records + "none": {0, 0}}}
	diags := Diagnostics{{Pos: model.Pos{File: "t/t.cue", Line: 3, Col: 4}, Related: []model.Pos{{File: "t/t.cue", Line: 9, Col: 1}}, Path: "tenants.t", Msg: "m"}}
	// strings as withinStrings counted them: a cache hit reads the
	// count back instead of walking the tenants again.
	return &fileResult{path: "t/t.cue", pos: pos, tenants: tenants, diags: diags, strings: 12345}
}

// TestCacheEntryRoundTrip: an entry reads back as the result it was
// written from, an empty list apart from an absent one, a nil name or
// zone's records apart from none, and the numbers of the struct types
// with their Go types; writing it leaves the result in hand whole.
func TestCacheEntryRoundTrip(t *testing.T) {
	for i, f := range reflect.VisibleFields(reflect.TypeOf(rawName{})) {
		if reflect.ValueOf(*everyField()).Field(i).IsZero() {
			t.Fatalf("everyField leaves %s unset: set it, so that the entry's layout is tested for it", f.Name)
		}
	}
	want := entryFixture()
	body, err := encodeEntry(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(want, entryFixture()) {
		t.Fatal("encodeEntry changed the result it wrote")
	}
	got, ok := decodeEntry(body, want.path, nil)
	if !ok {
		t.Fatal("the entry was not read back")
	}
	// Each zone's names come back in the order the builder would put
	// them in: by position, then the unpositioned by name.
	for zname, z := range got.tenants["t"].DNS.Zones {
		wantOrder := (&builder{pos: want.pos}).inFileOrder([]string{"tenants", "t", "dns", "zones", zname, "records"}, slices.Sorted(maps.Keys(z.Records)))
		if !slices.Equal(z.order, wantOrder) || (z.Records != nil) != (z.order != nil) {
			t.Errorf("zone %s: names read back in the order %q, want %q", zname, z.order, wantOrder)
		}
		z.order = nil // not in the result written
	}
	if got := (&builder{pos: want.pos}).inFileOrder([]string{"tenants", "t", "dns", "zones", "t.example", "records"}, slices.Sorted(maps.Keys(want.tenants["t"].DNS.Zones["t.example"].Records))); !slices.Equal(got, []string{"none", "null", "_first", "all", "ünï"}) {
		t.Errorf("the fixture's names are in the order %q: write them in one of their own", got)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got.tenants)
		w, _ := json.Marshal(want.tenants)
		t.Errorf("read back\n%s\nwant\n%s", g, w)
	}
	if again, _ := encodeEntry(got); !bytes.Equal(again, body) {
		t.Error("one result was written as two different entries")
	}
	if _, ok := decodeEntry(body, "t/other.cue", nil); ok {
		t.Error("an entry of t/t.cue was read for t/other.cue")
	}
}

// TestCacheEntryDamaged: a body cut short anywhere, or with a byte
// more, is refused, without a panic, wherever its sections are cut.
func TestCacheEntryDamaged(t *testing.T) {
	r := entryFixture()
	body, err := encodeEntry(r)
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(body) {
		if _, ok := decodeEntry(body[:n], r.path, nil); ok {
			t.Errorf("a body cut to %d of %d bytes was read", n, len(body))
		}
	}
	if _, ok := decodeEntry(append(bytes.Clone(body), 0), r.path, nil); ok {
		t.Error("a body with a byte more was read")
	}
}

// rechecked is an entry whose body change made has its checksum made
// to match, under header: only the body's own reading can refuse it.
func rechecked(header string, entry []byte, change func(body []byte) []byte) []byte {
	_, body, _ := bytes.Cut(entry, []byte("\n"))
	body = change(body)
	return fmt.Appendf(nil, "%s %x\n%s", header, sha256.Sum256(body), body)
}

package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/site-tools/site/compiler/model"
)

// A diff or apply of one tenant loads every other tenant file beside it
// for the checks between tenants only (neighbours.go). Decoding each
// neighbour's whole cache entry and building its model was most of such
// a load (issue 25: one tenant of 100 tenants of 100 zones cost 17 to 30
// times the same tenant alone), and the checks between tenants read
// little of it: the names of its zones, VMs and networks, its disks,
// its networks' prefixes and its MAC addresses. So beside a file's
// entry the cache keeps its neighbour index: the tenant cut down to
// those, the few positions the checks between tenants point at, and
// every diagnostic the file's own checks find (evaluation, building, and
// the record checks, which read nothing of another file's when no zone
// of another file is above or below one of its own). It depends on
// nothing the entry's key does not hash, so it lives under a key derived
// from the entry's, written and read as entries are: renamed into place
// whole, its checksum checked, its path checked, every length bounded by
// the bytes left; anything else is a miss and the whole entry is read.

// neighbourIndex is what the checks between tenants need of a
// neighbour's file: its one tenant, cut down (stubTenant), and every
// diagnostic of the file's own.
type neighbourIndex struct {
	tenant *model.Tenant
	diags  Diagnostics
}

// indexFormat heads an index entry, as cacheFormat heads an entry.
const indexFormat = "site-neighbours 1"

// indexKey is where the index of the file whose entry is key lives:
// beside it, in the same build's directory, so pruning treats both
// alike.
func indexKey(key string) string {
	tag, sum := key[:len(key)-64], key[len(key)-64:]
	h := sha256.Sum256([]byte(indexFormat + "\x00" + sum))
	return tag + hex.EncodeToString(h[:])
}

// getIndex returns the file at path as its neighbour index holds it (a
// result with index set and no tenants), or nil.
func (c *Cache) getIndex(key, path string) *fileResult {
	data, err := readUsed(c.entry(indexKey(key)), time.Now())
	if err != nil {
		return nil
	}
	header, body, ok := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(body)
	if !ok || string(header) != indexFormat+" "+hex.EncodeToString(sum[:]) {
		return nil
	}
	return decodeIndex(string(body), path)
}

// putIndex stores the index of r, built into t and checked alone into
// diags, beside r's entry.
func (c *Cache) putIndex(key string, r *fileResult, t *model.Tenant, diags Diagnostics) error {
	body, err := encodeIndex(r, t, diags)
	if err != nil {
		return err
	}
	return c.writeEntry(c.entry(indexKey(key)), indexFormat, body)
}

// neighbourPositions are the positions of r the checks between tenants
// read: its tenant's declaration (oneFile) and each MAC address
// (uniqueMACs), as r's full index resolves them.
func neighbourPositions(r *fileResult, t *model.Tenant) map[string]lineCol {
	at := map[string]lineCol{}
	keep := func(path ...string) {
		p := r.pos.pos(path...)
		at[strings.Join(path, pathSep)] = lineCol{p.Line, p.Col}
	}
	keep("tenants", t.Name)
	for _, v := range t.VMs {
		if v.Pos.File != r.pos.file {
			continue // uniqueMACs points at the VM itself
		}
		for i, n := range v.NICs {
			if n.MAC != "" {
				keep("tenants", t.Name, "vms", v.Name, "nics", strconv.Itoa(i), "mac")
			}
		}
	}
	return at
}

// encodeIndex writes the index body: the path, the strings count, the
// diagnostics as JSON, the positions (neighbourPositions), then the tenant.
func encodeIndex(r *fileResult, t *model.Tenant, diags Diagnostics) ([]byte, error) {
	js, err := json.Marshal(diags)
	if err != nil {
		return nil, err
	}
	w := entryWriter{file: r.path}
	w.str(r.path)
	w.uint(r.strings)
	w.bytes(js)
	at := neighbourPositions(r, t)
	w.uint(uint64(len(at)))
	for key, lc := range at {
		w.str(key)
		w.uint(uint64(lc[0]))
		w.uint(uint64(lc[1]))
	}
	writeStub(&w, t)
	return w.b, nil
}

// decodeIndex reads encodeIndex's body for the file at path, or
// returns nil when it does not read back whole.
func decodeIndex(body, path string) *fileResult {
	rd := &entryReader{s: body, ok: true, file: path}
	if rd.str() != path || !rd.ok {
		return nil
	}
	r := &fileResult{path: path, strings: rd.uint()}
	var diags Diagnostics
	if js := rd.str(); !rd.ok || json.Unmarshal([]byte(js), &diags) != nil {
		return nil
	}
	n := rd.count()
	at := make(map[string]lineCol, n)
	for range n {
		key := rd.str()
		at[key] = lineCol{rd.smallInt(), rd.smallInt()}
	}
	t := readStub(rd)
	if !rd.ok || len(rd.s) > 0 {
		return nil
	}
	r.pos = &positions{file: path, at: at}
	r.index = &neighbourIndex{tenant: t, diags: diags}
	return r
}

// smallInt reads a uint that must fit a line or column.
func (r *entryReader) smallInt() int {
	n := r.uint()
	if n > 1<<31 {
		r.ok = false
		return 0
	}
	return int(n)
}

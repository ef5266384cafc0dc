package compiler

import (
	"encoding/json"
	"maps"
	"slices"
)

// packRecords writes the records of every zone of tenants, the part of
// a big file's entry that JSON was slow to read back: for each tenant
// and zone (by name) that has records, the tenant's and the zone's
// names, how many names it has, and each name with its record types
// (entryWriter.name), in the order the user wrote them as pos says
// (inFileOrder), which the builder then need not work out again. A
// zone whose records are nil is left out, so it reads back nil, apart
// from a zone with none.
func packRecords(tenants map[string]*rawTenant, pos *positions) ([]byte, error) {
	var w entryWriter
	b := &builder{pos: pos}
	for _, tname := range slices.Sorted(maps.Keys(tenants)) {
		t := tenants[tname]
		if t == nil || t.DNS == nil {
			continue
		}
		for _, zname := range slices.Sorted(maps.Keys(t.DNS.Zones)) {
			z := t.DNS.Zones[zname]
			if z == nil || z.Records == nil {
				continue
			}
			w.str(tname)
			w.str(zname)
			w.uint(uint64(len(z.Records)))
			for _, key := range b.inFileOrder([]string{"tenants", tname, "dns", "zones", zname, "records"}, slices.Sorted(maps.Keys(z.Records))) {
				w.str(key)
				if err := w.name(z.Records[key]); err != nil {
					return nil, err
				}
			}
		}
	}
	return w.b, nil
}

// unpackRecords reads packRecords' section back into the zones of
// tenants (read from the entry's JSON, without records): each zone must
// be there, and get its records, and their order, once.
func unpackRecords(s string, tenants map[string]*rawTenant) bool {
	r := entryReader{s: s, ok: true}
	for r.ok && len(r.s) > 0 {
		t := tenants[r.str()]
		zname := r.str()
		if t == nil || t.DNS == nil {
			return false
		}
		z := t.DNS.Zones[zname]
		if z == nil || z.Records != nil {
			return false
		}
		// The names of a zone in one allocation, not one each.
		names := make([]rawName, r.count())
		z.Records = make(map[string]*rawName, len(names))
		z.order = make([]string, len(names))
		for i := range names {
			key := r.str()
			z.order[i] = key
			if r.name(&names[i]) {
				z.Records[key] = &names[i]
			} else {
				z.Records[key] = nil
			}
		}
		if len(z.Records) != len(names) {
			return false // a name twice
		}
	}
	return r.ok
}

// The record types of a name, one bit each in the mask that starts a
// packed name, in the order they follow it; nilName marks a nil name.
const (
	hasTTL = 1 << iota
	hasProxied
	hasA
	hasAAAA
	hasCNAME
	hasTXT
	hasMX
	hasSRV
	hasCAA
	hasNS
	hasPTR
	hasSSHFP
	hasTLSA
	hasHTTPS
	hasSVCB
	hasNAPTR
	hasDS
	hasDNAME
	hasOPENPGPKEY
	hasDHCID
	hasALIAS
	hasTTLs
	hasLOC
	hasURI
	hasCERT
	hasSMIMEA
	hasHINFO
	hasRP
	nilName
)

// name writes one name: the mask of the fields it sets (a list is set
// when it is not nil, though empty: A: [] is not A unset), then the
// fields of plain strings and numbers, then those of small structs,
// then the struct types (SSHFP, TLSA, ...), rare and of many shapes, as
// JSON, which keeps their numbers' Go types (rdataFields).
func (w *entryWriter) name(n *rawName) error {
	if n == nil {
		w.uint(nilName)
		return nil
	}
	var mask uint64
	for bit, set := range []bool{n.TTL != nil, n.Proxied != nil, n.A != nil, n.AAAA != nil, n.CNAME != nil,
		n.TXT != nil, n.MX != nil, n.SRV != nil, n.CAA != nil, n.NS != nil, n.PTR != nil,
		n.SSHFP != nil, n.TLSA != nil, n.HTTPS != nil, n.SVCB != nil, n.NAPTR != nil, n.DS != nil,
		n.DNAME != nil, n.OPENPGPKEY != nil, n.DHCID != nil, n.ALIAS != nil, n.TTLs != nil,
		n.LOC != nil, n.URI != nil, n.CERT != nil, n.SMIMEA != nil, n.HINFO != nil, n.RP != nil} {
		if set {
			mask |= 1 << bit
		}
	}
	w.uint(mask)
	if n.TTL != nil {
		w.int(*n.TTL)
	}
	if n.Proxied != nil {
		w.bool(*n.Proxied)
	}
	if n.TTLs != nil {
		w.uint(uint64(len(n.TTLs)))
		for _, typ := range slices.Sorted(maps.Keys(n.TTLs)) {
			w.str(typ)
			w.int(n.TTLs[typ])
		}
	}
	for _, s := range []*string{n.CNAME, n.DNAME, n.ALIAS} {
		if s != nil {
			w.str(*s)
		}
	}
	for _, ss := range [][]string{n.A, n.AAAA, n.NS, n.PTR, n.OPENPGPKEY, n.DHCID, n.LOC} {
		if ss != nil {
			w.strs(ss)
		}
	}
	w.structs(n)
	for _, fs := range [][]rdataFields{n.SSHFP, n.TLSA, n.HTTPS, n.SVCB, n.NAPTR, n.DS, n.URI, n.CERT, n.SMIMEA, n.HINFO, n.RP} {
		if fs != nil {
			b, err := json.Marshal(fs)
			if err != nil {
				return err
			}
			w.bytes(b)
		}
	}
	return nil
}

func (w *entryWriter) bool(b bool) {
	if b {
		w.uint(1)
	} else {
		w.uint(0)
	}
}

// structs writes the lists of small structs of n: TXT, MX, SRV, CAA.
func (w *entryWriter) structs(n *rawName) {
	if n.TXT != nil {
		w.uint(uint64(len(n.TXT)))
		for _, t := range n.TXT {
			w.bool(t.Parts != nil)
			if t.Parts == nil {
				w.str(t.Text)
			} else {
				w.strs(t.Parts)
			}
		}
	}
	if n.MX != nil {
		w.uint(uint64(len(n.MX)))
		for _, mx := range n.MX {
			w.int(mx.Priority)
			w.str(mx.Host)
		}
	}
	if n.SRV != nil {
		w.uint(uint64(len(n.SRV)))
		for _, s := range n.SRV {
			w.int(s.Priority)
			w.int(s.Weight)
			w.int(s.Port)
			w.str(s.Target)
		}
	}
	if n.CAA != nil {
		w.uint(uint64(len(n.CAA)))
		for _, c := range n.CAA {
			w.int(c.Flags)
			w.str(c.Tag)
			w.str(c.Value)
		}
	}
}

// name reads what entryWriter.name wrote into n, and reports whether
// the name was not nil.
func (r *entryReader) name(n *rawName) bool {
	mask := r.uint()
	if mask == nilName {
		return false
	}
	if mask >= nilName {
		r.ok = false
		return false
	}
	if mask&hasTTL != 0 {
		ttl := r.int()
		n.TTL = &ttl
	}
	if mask&hasProxied != 0 {
		proxied := r.bool()
		n.Proxied = &proxied
	}
	if mask&hasTTLs != 0 {
		k := r.count()
		n.TTLs = make(map[string]int64, k)
		for range k {
			typ := r.str()
			n.TTLs[typ] = r.int()
		}
	}
	for _, f := range []struct {
		bit uint64
		to  **string
	}{{hasCNAME, &n.CNAME}, {hasDNAME, &n.DNAME}, {hasALIAS, &n.ALIAS}} {
		if mask&f.bit != 0 {
			s := r.str()
			*f.to = &s
		}
	}
	for _, f := range []struct {
		bit uint64
		to  *[]string
	}{{hasA, &n.A}, {hasAAAA, &n.AAAA}, {hasNS, &n.NS}, {hasPTR, &n.PTR}, {hasOPENPGPKEY, &n.OPENPGPKEY}, {hasDHCID, &n.DHCID}, {hasLOC, &n.LOC}} {
		if mask&f.bit != 0 {
			*f.to = r.strs()
		}
	}
	if mask&(hasTXT|hasMX|hasSRV|hasCAA) != 0 {
		r.structs(mask, n)
	}
	if mask&(hasSSHFP|hasTLSA|hasHTTPS|hasSVCB|hasNAPTR|hasDS|hasURI|hasCERT|hasSMIMEA|hasHINFO|hasRP) != 0 {
		r.fields(mask, n)
	}
	return true
}

func (r *entryReader) bool() bool {
	switch r.uint() {
	case 0:
		return false
	case 1:
		return true
	}
	r.ok = false
	return false
}

// structs reads the lists of small structs mask sets.
func (r *entryReader) structs(mask uint64, n *rawName) {
	if mask&hasTXT != 0 {
		n.TXT = make([]rawTXT, r.count())
		for i := range n.TXT {
			if r.bool() {
				n.TXT[i].Parts = r.strs()
			} else {
				n.TXT[i].Text = r.str()
			}
		}
	}
	if mask&hasMX != 0 {
		n.MX = make([]rawMX, r.count())
		for i := range n.MX {
			n.MX[i] = rawMX{Priority: r.int(), Host: r.str()}
		}
	}
	if mask&hasSRV != 0 {
		n.SRV = make([]rawSRV, r.count())
		for i := range n.SRV {
			n.SRV[i] = rawSRV{Priority: r.int(), Weight: r.int(), Port: r.int(), Target: r.str()}
		}
	}
	if mask&hasCAA != 0 {
		n.CAA = make([]rawCAA, r.count())
		for i := range n.CAA {
			n.CAA[i] = rawCAA{Flags: r.int(), Tag: r.str(), Value: r.str()}
		}
	}
}

// fields reads the struct types mask sets.
func (r *entryReader) fields(mask uint64, n *rawName) {
	for _, f := range []struct {
		bit uint64
		to  *[]rdataFields
	}{{hasSSHFP, &n.SSHFP}, {hasTLSA, &n.TLSA}, {hasHTTPS, &n.HTTPS}, {hasSVCB, &n.SVCB}, {hasNAPTR, &n.NAPTR}, {hasDS, &n.DS},
		{hasURI, &n.URI}, {hasCERT, &n.CERT}, {hasSMIMEA, &n.SMIMEA}, {hasHINFO, &n.HINFO}, {hasRP, &n.RP}} {
		if mask&f.bit == 0 {
			continue
		}
		if err := json.Unmarshal([]byte(r.str()), f.to); err != nil || *f.to == nil {
			r.ok = false
		}
	}
}

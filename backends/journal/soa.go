package journal

import (
	"fmt"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/rdata"
)

// An SOA is not a record set the spec lists: the zone's soa sets some of
// its fields over the server's record, and the serial is always the
// server's (PowerDNS counts it up on every change). So an undo of an SOA
// change sets the zone's soa to every field of the before-image but the
// serial, and compares the live SOA with what the apply wrote without
// the serial either.

// soaOf is the SOA an SOA change's record data holds, false when it
// holds none site can read.
func soaOf(r *RRset) (rdata.SOA, bool) {
	if r == nil || len(r.Values) != 1 {
		return rdata.SOA{}, false
	}
	s, err := rdata.ParseSOA(r.Values[0])
	return s, err == nil
}

// soaBack is the zone soa that puts c's before-image back.
func soaBack(c Change) (*model.SOA, error) {
	s, ok := soaOf(c.Before)
	if !ok {
		return nil, fmt.Errorf("journal entry's SOA change of %s holds no SOA site can read", c.Zone)
	}
	refresh, retry, expire, minimum := s.Refresh, s.Retry, s.Expire, s.Minimum
	return &model.SOA{MName: s.MName, Mbox: s.RName, Refresh: &refresh, Retry: &retry, Expire: &expire, Minimum: &minimum}, nil
}

// sameSOA reports whether a and b are the same SOA but for the serial
// (and so the same record set as far as an undo is concerned).
func sameSOA(a, b *RRset) bool {
	x, okA := soaOf(a)
	y, okB := soaOf(b)
	if !okA || !okB {
		return a.Same(b)
	}
	x.Serial, y.Serial = 0, 0
	return x == y && a.TTL == b.TTL
}

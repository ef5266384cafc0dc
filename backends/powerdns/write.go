package powerdns

import (
	"context"
	"encoding/json"
	"fmt"

	pdns "github.com/joeig/go-powerdns/v3"
)

// write sends the batch: a missing zone is created with its rrsets in one
// POST; an existing zone gets one PATCH, DELETEs first so that an rrset
// giving way to a CNAME is gone before the CNAME is written.
func (d *Driver) write(ctx context.Context, b *batch, zone string) error {
	ops := make([]pdns.RRset, 0, len(b.deletes)+len(b.replaces))
	ops = append(ops, b.deletes...)
	ops = append(ops, b.replaces...)
	if b.create {
		z := &pdns.Zone{Name: pdns.String(zone), Kind: pdns.ZoneKindPtr(pdns.NativeZoneKind),
			// DEFAULT, never "": an empty SOA-EDIT-API leaves the serial
			// at 0 for ever and secondaries never see a change.
			SOAEditAPI: pdns.String("DEFAULT"), Nameservers: []string{}}
		chunks := split(ops, d.maxBody())
		if len(chunks) == 1 {
			// A POST takes rrsets without changetype; only REPLACEs exist
			// for a zone that does not exist yet.
			for _, rs := range b.replaces {
				rs.ChangeType = nil
				z.RRsets = append(z.RRsets, rs)
			}
			chunks = nil
		}
		err := d.retry(ctx, func(ctx context.Context) error {
			_, err := b.client.api.Zones.Add(ctx, z)
			return err
		})
		if err != nil {
			return fmt.Errorf("create zone %s: %w", zone, err)
		}
		return d.patch(ctx, b, zone, chunks)
	}
	return d.patch(ctx, b, zone, split(ops, d.maxBody()))
}

func (d *Driver) patch(ctx context.Context, b *batch, zone string, chunks [][]pdns.RRset) error {
	for i, chunk := range chunks {
		err := d.retry(ctx, func(ctx context.Context) error {
			return b.client.api.Records.Patch(ctx, zone, &pdns.RRsets{Sets: chunk})
		})
		if err != nil {
			where := ""
			if len(chunks) > 1 {
				where = fmt.Sprintf(" (part %d of %d; the earlier parts were applied: re-run to converge)", i+1, len(chunks))
			}
			return fmt.Errorf("update zone %s%s: %w", zone, where, err)
		}
	}
	return nil
}

// split cuts ops into PATCH bodies of at most limit bytes, keeping their
// order (so every DELETE still precedes every REPLACE). One body is the
// rule; several only when the server would refuse one this big, at the
// cost of atomicity between them.
func split(ops []pdns.RRset, limit int) [][]pdns.RRset {
	if len(ops) == 0 {
		return nil
	}
	// The common case, one body under the limit, costs one marshal.
	if whole, err := json.Marshal(pdns.RRsets{Sets: ops}); err == nil && len(whole)+1 <= limit {
		return [][]pdns.RRset{ops}
	}
	const envelope = len(`{"rrsets":[]}` + "\n")
	var chunks [][]pdns.RRset
	start, size := 0, envelope
	for i, rs := range ops {
		raw, _ := json.Marshal(rs)
		n := len(raw) + 1 // the comma
		if i > start && size+n > limit {
			chunks = append(chunks, ops[start:i])
			start, size = i, envelope
		}
		size += n
	}
	return append(chunks, ops[start:])
}

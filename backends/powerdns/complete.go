package powerdns

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
)

// ErrIncomplete means a zone answer was well-formed but not the whole
// zone. Such an answer is not an observation: planning from it would
// take a foreign name it left out for free (overwritten without
// GATE-DNS-OVERWRITE, marked as ours, deleted by a later spec).
var ErrIncomplete = errors.New("the zone answer is incomplete")

// complete checks that a GET of zone holds the whole zone, as far as
// the answer itself can tell: every zone has exactly one SOA record, at
// its apex, whose serial is the serial the answer names for the zone;
// and every rrset lies inside the zone. An answer that lost rrsets on
// the way (a proxy, a cache, a truncated body that still parsed) fails
// the first test when it lost the SOA, as an empty rrsets list does.
// One that lost only other rrsets cannot be told from the zone here;
// the re-read before a create (see recheck) covers that case.
func complete(z *pdns.Zone, zone string) error {
	var soa []pdns.Record
	found := 0
	for i := range z.RRsets {
		rs := &z.RRsets[i]
		name := strings.ToLower(pdns.StringValue(rs.Name))
		if name != zone && !strings.HasSuffix(name, "."+zone) {
			return fmt.Errorf("%w: it holds %s, which is outside the zone", ErrIncomplete, name)
		}
		if strings.EqualFold(string(derefType(rs.Type)), "SOA") && len(rs.Records) > 0 {
			if name != zone {
				return fmt.Errorf("%w: it holds an SOA at %s, below the apex", ErrIncomplete, name)
			}
			found++
			soa = rs.Records
		}
	}
	if found != 1 || len(soa) != 1 {
		return fmt.Errorf("%w: it holds %d SOA records at the apex, where every zone has exactly one", ErrIncomplete, found*len(soa))
	}
	// MNAME RNAME SERIAL REFRESH RETRY EXPIRE MINIMUM
	f := strings.Fields(pdns.StringValue(soa[0].Content))
	if len(f) != 7 {
		return fmt.Errorf("%w: its SOA %q is not an SOA record", ErrIncomplete, pdns.StringValue(soa[0].Content))
	}
	if z.Serial != nil {
		if s, err := strconv.ParseUint(f[2], 10, 32); err != nil || uint32(s) != *z.Serial {
			return fmt.Errorf("%w: its SOA serial %s is not the zone's serial %d", ErrIncomplete, f[2], *z.Serial)
		}
	}
	return nil
}

// incomplete is Plan's error for a zone whose answer failed a check.
func incomplete(zone string, c *client, err error) error {
	return fmt.Errorf("observe zone %s at %s: %w; nothing is planned for this zone, deletes least of all: run site diff again, and if it persists check what stands between site and the server (a proxy, a cache)",
		zone, c.base, err)
}

// apexNS checks a zone answer without an apex NS against the server:
// most zones have one, and an answer that lost it may have lost more.
// Only such answers of a plan with changes pay this one filtered read
// (?rrset_name=&rrset_type=, a different request from the zone read),
// so a converged diff stays one GET; a zone that really has no apex NS
// (site creates zones with none unless the spec names them) reads back
// none there either.
func (d *Driver) apexNS(ctx context.Context, c *client, z *pdns.Zone, zone string) error {
	for i := range z.RRsets {
		rs := &z.RRsets[i]
		if strings.EqualFold(pdns.StringValue(rs.Name), zone) && strings.EqualFold(string(derefType(rs.Type)), "NS") && len(rs.Records) > 0 {
			return nil
		}
	}
	var ns []pdns.RRset
	err := d.retry(ctx, func(ctx context.Context) error {
		var err error
		ns, err = c.api.Records.Get(ctx, zone, zone, pdns.RRTypePtr(pdns.RRTypeNS))
		return err
	})
	if err != nil {
		return fmt.Errorf("the zone answer has no apex NS, and reading the apex NS alone failed: %w", err)
	}
	for _, rs := range ns {
		if strings.EqualFold(pdns.StringValue(rs.Name), zone) && strings.EqualFold(string(derefType(rs.Type)), "NS") && len(rs.Records) > 0 {
			return fmt.Errorf("%w: it has no apex NS, but the server holds %d NS records there", ErrIncomplete, len(rs.Records))
		}
	}
	return nil
}

// recheckEach is the most creates re-read one by one before a PATCH;
// past it one read of the whole zone is cheaper than a request each.
const recheckEach = 16

// recheck reads again, just before the PATCH and under the server's
// write lock, every rrset that the plan creates because the observation
// showed nothing there. PowerDNS has no create-only write (a REPLACE
// writes over whatever is there), so data that appeared since the
// observation, or that an incomplete answer left out, would otherwise
// be replaced in silence. Up to recheckEach creates are read by name
// and type (?rrset_name=&rrset_type=, a different request from the
// zone read, so it does not share a fault of that answer); more, with
// one whole-zone read.
func (d *Driver) recheck(ctx context.Context, b *batch, zone string) error {
	if len(b.fresh) == 0 {
		return nil
	}
	var taken []string
	if len(b.fresh) <= recheckEach {
		for _, k := range b.fresh {
			var live []pdns.RRset
			err := d.retry(ctx, func(ctx context.Context) error {
				var err error
				live, err = b.client.api.Records.Get(ctx, zone, k.name, pdns.RRTypePtr(pdns.RRType(k.typ)))
				return err
			})
			if err != nil {
				return fmt.Errorf("re-read %s %s before writing it: %w; nothing was written to zone %s", k.name, k.typ, err, zone)
			}
			for _, rs := range live {
				if strings.EqualFold(pdns.StringValue(rs.Name), k.name) && strings.EqualFold(string(derefType(rs.Type)), k.typ) && len(rs.Records) > 0 {
					taken = append(taken, k.name+" "+k.typ)
				}
			}
		}
	} else {
		var live *pdns.Zone
		err := d.retry(ctx, func(ctx context.Context) error {
			var err error
			live, err = b.client.api.Zones.Get(ctx, zone)
			return err
		})
		if err == nil {
			err = complete(live, zone)
		}
		if err != nil {
			return fmt.Errorf("re-read zone %s before writing it: %w; nothing was written", zone, err)
		}
		obs := observe(live)
		for _, k := range b.fresh {
			if l := obs.Sets[dnsplan.NameType{Name: k.name, Type: k.typ}]; l != nil && l.HasData() {
				taken = append(taken, k.name+" "+k.typ)
			}
		}
	}
	if len(taken) > 0 {
		return &APIError{Class: backends.ClassConflict, Err: fmt.Errorf(
			"zone %s: %s now hold data the observation did not show (written since, or left out of the zone answer), and site would have replaced it; nothing was written: run site diff again to see whose it is",
			zone, strings.Join(taken, ", "))}
	}
	return nil
}

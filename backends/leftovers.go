package backends

import (
	"context"

	"github.com/site-tools/site/compiler/model"
)

// ListedZone is one zone a DNS provider lists: its canonical name and
// the provider's id for it (Cloudflare's zone id; the name again for
// PowerDNS).
type ListedZone struct {
	Name, ID string
}

// MarkReader is a DNS backend that can tell site leftovers which zones a
// provider holds and which of site's owner markers one of them carries:
// one listing per provider, then one read per zone asked about, so the
// zones the specs declare cost nothing.
type MarkReader interface {
	// ListZones lists every zone on p that its credential can see.
	ListZones(ctx context.Context, p model.Provider, run *Run) ([]ListedZone, error)
	// ZoneMarks reads zone z, one of ListZones' answer, and returns the
	// owner markers on it, sorted (SortMarks).
	ZoneMarks(ctx context.Context, p model.Provider, z ListedZone, run *Run) ([]Mark, error)
}

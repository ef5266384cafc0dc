package compiler

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// Early zones. A file whose evaluation the cache holds is known long
// before the load ends (reading its records and positions back,
// assembling its tenant and the checks between tenants take the rest),
// and the zones it declares, with the provider each resolves to, are
// all a zone read needs: site diff starts reading them meanwhile
// (Options.Early), so a converged diff of an unchanged spec waits for
// the server instead of for the load and then the server. The entry's
// tenants come first in it, without records; they are given from there.
//
// Only what the tenant's own checks passed is given: a cached file
// without problems, declaring the one tenant its name says, no more
// zones than its grant's limit, and zones that tenant's grant lets it
// hold, on a provider granted to it; and only a file no other file
// being loaded shares a name with (LoadWith), as a tenant's limit
// bounds its zones only once it is in one file. The checks between
// tenants come later and may still fail the load, whose caller then
// uses nothing it read.

// earlyZones gives f every zone of r, in name order (r's positions are
// not read yet), when all of them pass those checks; else none.
func earlyZones(op *operator, r *fileResult, f func(*model.Zone)) {
	if len(r.diags) > 0 || len(r.tenants) != 1 {
		return
	}
	name := strings.TrimSuffix(filepath.Base(r.path), ".cue")
	raw := r.tenants[name]
	if raw == nil || raw.DNS == nil || CheckTenantName(name) != nil {
		return
	}
	b := &builder{op: op, pos: r.pos}
	tp := []string{"tenants", name}
	g := b.grantOf(name, tp)
	// A file past its limit is refused by the load: none of its zones
	// may cost a request meanwhile (quota.go).
	if g == nil || !b.withinZones(name, g, tp, len(raw.DNS.Zones)) {
		return
	}
	var zones []*model.Zone
	for _, key := range b.inFileOrder(at(tp, "dns", "zones"), slices.Collect(maps.Keys(raw.DNS.Zones))) {
		z := b.zoneHead(name, g, at(tp, "dns", "zones", key), key, raw.DNS.Zones[key])
		if z == nil || len(b.diags) > 0 {
			return // the load reports it; nothing of this file is read
		}
		zones = append(zones, z)
	}
	for _, z := range zones {
		f(z)
	}
}

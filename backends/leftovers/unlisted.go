package leftovers

import "fmt"

// withholdUnlisted takes the removal command off each zone of rep (a
// Cloudflare provider's) that a tenant declares on another Cloudflare
// provider whose zones could not be listed. A zone is known across two
// tokens of one account by its id, which only that provider's listing
// gives (noteIDs): without it, the zone read here may be the tenant's
// live zone, and taking its markers off would hand its records to no
// tenant.
func withholdUnlisted(rep ProviderReport, in Input, lists []*providerList) ProviderReport {
	unlisted := unlistedProviders(lists)
	for i, z := range rep.Zones {
		if z.Remove == "" {
			continue
		}
		if why, ok := declaredOnUnlisted(z.Zone, rep.Name, in, unlisted); ok {
			rep.Zones[i].NotJudged = why
			rep.Zones[i].Remove = ""
		}
	}
	return rep
}

// unlistedProviders is the Cloudflare providers of lists whose zones
// could not be listed, an alias (SameAs) as the provider it names.
func unlistedProviders(lists []*providerList) map[string]bool {
	failed := map[string]bool{}
	for _, l := range lists {
		if l.report.Error != "" && l.p.Cloudflare != nil {
			failed[l.report.Name] = true
		}
	}
	for _, l := range lists {
		if l.report.SameAs != "" && failed[l.report.SameAs] {
			failed[l.report.Name] = true
		}
	}
	return failed
}

// declaredOnUnlisted says which tenant declares zone on a provider of
// unlisted other than here, if one does.
func declaredOnUnlisted(zone, here string, in Input, unlisted map[string]bool) (string, bool) {
	for _, t := range in.Tenants {
		for _, z := range t.Zones {
			for _, p := range z.Served() {
				if z.Name == zone && p.Name != here && unlisted[p.Name] {
					return fmt.Sprintf("tenant %s declares this zone on provider %s, whose zones could not be listed: if its token reaches this zone's account, this is that tenant's zone; run site leftovers again once provider %s can be listed",
						t.Name, p.Name, p.Name), true
				}
			}
		}
	}
	return "", false
}

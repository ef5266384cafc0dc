package leftovers

import "fmt"

// grantedUnloaded reports whether tenant is one site.cue still grants
// whose file was not loaded: a PATH that does not reach its file (one
// in another directory) leaves it out, and what its markers hold may be
// declared still. Only a tenant without a grant is known to be gone.
func grantedUnloaded(in Input, loaded map[string]bool, tenant string) bool {
	return !loaded[tenant] && in.Granted != nil && in.Granted(tenant)
}

// notJudgedWhy says why what tenant's markers hold is not judged.
func notJudgedWhy(tenant, what string) string {
	return fmt.Sprintf("tenant %s is granted in site.cue, but its file was not loaded, so it may declare this %s still: "+
		"run site leftovers on every tenant file (the default, ./tenants/..., loads them all), or, for a tenant removed, remove its grant too", tenant, what)
}

// withholdGranted takes the removal command off each zone of rep whose
// markers name a tenant site.cue grants but whose file was not loaded,
// and says why: its markers may be on a zone that tenant declares.
func withholdGranted(rep ProviderReport, in Input, loaded map[string]bool) ProviderReport {
	for i, z := range rep.Zones {
		for _, o := range z.Owners {
			if grantedUnloaded(in, loaded, o.Tenant) {
				rep.Zones[i].NotJudged = notJudgedWhy(o.Tenant, "zone")
				rep.Zones[i].Remove = ""
				break
			}
		}
	}
	return rep
}

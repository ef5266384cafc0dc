package compiler

import (
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/model"
)

// A zone may name several providers (provider: ["pdns", "pdns2"]): each
// serves the same records, so each provider's rules hold for the whole
// zone, and a record one of them cannot serve is refused with that
// provider named. With one provider every message reads as it always
// has.

// zoneProviders resolves the providers zone z names at zp, each of
// which site.cue must grant its tenant.
func (b *builder) zoneProviders(tenant string, g *grant, zp []string, z *model.Zone, names providerNames) {
	pp := at(zp, "provider")
	if len(names) == 1 {
		z.Provider = b.provider(tenant, g, pp, names[0])
		return
	}
	seen := map[string]int{}
	for i, name := range names {
		ip := at(pp, strconv.Itoa(i))
		if j, dup := seen[name]; dup {
			b.related(ip, []model.Pos{b.pos.pos(at(pp, strconv.Itoa(j))...)}, "provider %q is listed twice; list each provider once", name)
			continue
		}
		seen[name] = i
		if p := b.provider(tenant, g, ip, name); p.Name != "" {
			z.Providers = append(z.Providers, p)
		}
	}
	if len(z.Providers) > 0 {
		z.Provider = z.Providers[0]
	}
	if len(z.Providers) == 1 {
		z.Providers = nil
	}
}

// providerList names providers for a message: "pdns, pdns2".
func providerList(ps []model.Provider) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// refusedBy is what a message about a rule of provider p starts with in
// zone z: nothing when p is z's only provider, else who refuses, so
// that on a zone of several providers the user knows which one cannot
// serve it.
func refusedBy(z *model.Zone, p *model.Provider) string {
	if len(z.Providers) < 2 || p == nil {
		return ""
	}
	return "provider " + p.Name + " (" + p.Kind() + ") cannot serve this, and zone " + z.Name + " is on each of its providers: "
}

package compiler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/site-tools/site/compiler/model"
)

// This file checks a tenant against its grant in site.cue: a tenant's
// file may use only the providers, hosts and host bridges granted to
// it, and only zones at or below its own domains (or names delegated to
// it), never a public suffix unless the operator allows it.

// grantOf returns tenant's grant, reporting a tenant site.cue does not
// declare.
func (b *builder) grantOf(tenant string, tp []string) *grant {
	g := b.op.grants[tenant]
	if g == nil {
		// A tenant offboarded with its grant removed first leaves its
		// file here, and every tenant's runs stop at it.
		b.errorf(tp, "tenant %s is not declared in the operator's file %s; the operator grants it there: tenants: %s: {domains: [...], providers: [...], hosts: [...]}, or, for a tenant removed, remove this file (what site wrote for it stays on the servers as it is)",
			tenant, b.op.file, tenant)
	}
	return g
}

// holds checks that tenant may hold name (its domain, or a zone).
func (b *builder) holds(tenant string, g *grant, path []string, what, name string) bool {
	held, c, ok := b.op.holder(name)
	switch {
	case !ok:
		// At the tenant's grant too: after a revoke, that is the line
		// that changed.
		b.related(path, []model.Pos{g.pos}, "%s %s is outside the domains site.cue grants tenant %s (%s); a tenant holds names at or below its domains only: %sask the operator to grant it",
			what, name, tenant, strings.Join(b.op.domainsOf(tenant), ", "), dropZone(what, ", or "))
		return false
	case c.single:
		b.related(path, []model.Pos{c.pos}, "%s %s is a single name site.cue grants tenant %s (names:): it is no zone and no domain; tenant %s writes its records with dns: names: %q: {provider: ..., ...}",
			what, name, c.tenant, c.tenant, strings.TrimSuffix(name, "."))
		return false
	case c.tenant != tenant && held == name:
		b.related(path, []model.Pos{c.pos}, "%s %s is granted to tenant %s in site.cue: a name has one holder, so a tenant never takes another's%s",
			what, name, c.tenant, strings.TrimSuffix("; "+dropZone(what, "")+b.ownDomain(what, name, tenant, c.tenant), "; "))
		return false
	case c.tenant != tenant:
		b.related(path, []model.Pos{c.pos}, "%s %s lies in %s, which site.cue grants to tenant %s: a tenant never takes names of another tenant's domain unless the operator delegates them: %sask the operator to delegate it (tenants: %s: delegate: [%q])",
			what, name, held, c.tenant, dropZone(what, ", or "), tenant, strings.TrimSuffix(name, "."))
		return false
	case !g.publicSuffix && isPublicSuffix(name):
		b.errorf(path, "%s %s is a public suffix: whoever holds it can answer for every name below it; the operator allows it only with allow_public_suffix: true on tenant %s",
			what, name, tenant)
		return false
	}
	// Its tenant's zone would answer for the address once the /24's
	// zone delegated it there instead of holding the CNAME into the
	// block (see grantedBlock).
	if a, ok := b.op.grantedBlock(name); ok && a.tenant != tenant {
		b.related(path, []model.Pos{b.op.claims[a.block].pos}, "%s %s %s: the address is that tenant's, reached through the CNAME the /24's zone holds at %s, to %s; remove this %s (tenant %s writes the address's PTR in its own zone, at %s)",
			what, name, a.where(name), a.rev, a.cname(), what, a.tenant, a.cname())
		return false
	}
	if sb, ok := b.op.blockSpelling(name, tenant); ok {
		b.related(path, []model.Pos{b.op.claims[sb.block].pos}, "%s", sb.msg(b.op, what, name, "remove this "+what))
		return false
	}
	return true
}

// dropZone says, for a zone a tenant may not hold, that the tenant
// removes it from its file, then sep; "" for any other what. A grant
// moved or revoked leaves the tenant's file declaring the zone, and
// removing it is the tenant's half of the change: nothing is deleted,
// as a zone a spec no longer declares is not looked at.
func dropZone(what, sep string) string {
	if what != "zone" {
		return ""
	}
	return "remove the zone from this file (what site wrote in it stays on the server as it is)" + sep
}

// ownDomain says, for a tenant's domain field that names another
// tenant's grant, what the tenant writes instead or asks the operator
// for; "" for any other what (a zone is removed, see dropZone). The
// domain is the tenant's own name, so unlike a zone it cannot just go.
func (b *builder) ownDomain(what, name, tenant, holder string) string {
	if what != "domain" {
		return ""
	}
	ask := fmt.Sprintf("ask the operator to grant %s to tenant %s in place of tenant %s", strings.TrimSuffix(name, "."), tenant, holder)
	granted := b.op.domainsOf(tenant)
	if len(granted) == 0 {
		return ask
	}
	return fmt.Sprintf("write a domain at or below one of the names site.cue grants tenant %s (%s), or %s", tenant, strings.Join(granted, ", "), ask)
}

// provider resolves the provider a zone names, if granted. (A grant
// names only declared providers: site.cue is checked first.)
func (b *builder) provider(tenant string, g *grant, path []string, name string) model.Provider {
	if !g.providers[name] {
		b.errorf(path, "provider %q is not granted to tenant %s in site.cue; %s", name, tenant, useGranted(g.providers, "providers", name))
		return model.Provider{}
	}
	return b.op.providers[name]
}

// host resolves the libvirt URI of the host a VM or network names, if
// granted. (A grant names only declared hosts.)
func (b *builder) host(tenant string, g *grant, path []string, name string) string {
	if !g.hosts[name] {
		b.errorf(path, "host %q is not granted to tenant %s in site.cue; %s", name, tenant, useGranted(g.hosts, "hosts", name))
		return ""
	}
	return b.op.hosts[name]
}

// bridge checks that tenant may join host bridge br of host (a name
// site.cue declares and grants it) with a bridged network: its guests
// are then on that bridge's LAN, which only the operator may give.
func (b *builder) bridge(tenant string, g *grant, path []string, host, br string) {
	if g.bridges[host+"/"+br] {
		return
	}
	var onHost []string
	for _, hb := range slices.Sorted(maps.Keys(g.bridges)) {
		if h, name, _ := strings.Cut(hb, "/"); h == host {
			onHost = append(onHost, name)
		}
	}
	if len(onHost) == 0 {
		b.errorf(path, "bridge %q on host %s is not granted to tenant %s in site.cue, and a bridged network's guests join that bridge's LAN; it is granted no bridge on %s: ask the operator to add bridges: [%q] to its grant, or use mode: \"nat\" or \"isolated\" for a LAN of its own",
			br, host, tenant, host, host+"/"+br)
		return
	}
	b.errorf(path, "bridge %q on host %s is not granted to tenant %s in site.cue, and a bridged network's guests join that bridge's LAN; use one of: %s, or ask the operator to add %q to its bridges",
		br, host, tenant, strings.Join(onHost, ", "), host+"/"+br)
}

// useGranted says what to do instead of naming one not granted: use
// one that is, or, with none of that kind granted (field: providers,
// hosts), have the operator grant the one named.
func useGranted(m map[string]bool, field, name string) string {
	if len(m) == 0 {
		return fmt.Sprintf("it is granted no %s: ask the operator to add %s: [%q] to its grant", field, field, name)
	}
	return "use one of: " + strings.Join(slices.Sorted(maps.Keys(m)), ", ") + ", or ask the operator to grant it"
}

// domainsOf lists the names site.cue grants tenant.
func (o *operator) domainsOf(tenant string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(o.claims)) {
		if o.claims[n].tenant == tenant {
			out = append(out, n)
		}
	}
	return out
}

// isPublicSuffix reports whether canonical name is a public suffix: a
// name under which anyone may register (com, co.uk, in-addr.arpa), by
// the Public Suffix List, or a top-level domain the list does not know
// (test), which the list's default rule counts as one.
func isPublicSuffix(name string) bool {
	s := strings.TrimSuffix(name, ".")
	if s == "" {
		return true
	}
	ps, _ := publicsuffix.PublicSuffix(s)
	return ps == s
}

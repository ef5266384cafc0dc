package compiler

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// The operator's file, site.cue (package site), is the trust boundary:
// it alone names endpoints and credentials, and it says what each tenant
// may use. A tenant's file arrives as a pull request; nothing in it can
// steer where site sends a credential.

// operator is site.cue, resolved: what tenants name, and what each may use.
type operator struct {
	file      string
	vaults    map[string]*model.Vault
	providers map[string]model.Provider
	hosts     map[string]string                  // name -> libvirt URI
	pools     map[string]map[string]*model.Pool  // host name -> pool name -> declared pool
	images    map[string]map[string]*model.Image // host name -> "pool/volume" -> declared image
	grants    map[string]*grant
	locks     *model.Locks     // where every tenant's apply lock lives (locks.go)
	claims    map[string]claim // canonical domain or delegated name -> who holds it
	// blocks are the RFC 2317 blocks among claims, by the /24's reverse
	// name they lie below (blocksByNet).
	blocks map[string][]grantedRange
	// nameservers are the name servers each provider's zones are served
	// from, by provider name, where site.cue lists them.
	nameservers map[string]nameservers
	// warnings are what site.cue says that is valid but most likely
	// not meant (endpoints.go); every load shows them.
	warnings Diagnostics
	// plainIP are the addresses site.cue sends credentials to over
	// plain http by IP, which a tenant's network may not hold
	// (endpoints.go).
	plainIP []plainIP
}

// nameservers are the name servers site.cue lists for a provider: all
// that a zone holding another tenant's name below its apex may name at
// the apex or at a cut above that name (see nsAboveGrants).
type nameservers struct {
	hosts []string  // canonical, as an NS record's values are
	pos   model.Pos // the nameservers field
}

// grant is what one tenant may use.
type grant struct {
	providers, hosts map[string]bool
	bridges          map[string]bool // "HOST/BRIDGE"
	publicSuffix     bool
	limits           limits // how many zones, VMs and networks (quota.go)
	pos              model.Pos
	// cidrs is the address space the tenant's networks lie in; nil
	// when site.cue grants none, and the default holds (cidrs.go).
	cidrs *[]grantedCIDR
}

// claim is a name granted to a tenant, as one of its domains or by
// delegation; a zone belongs to the tenant of its most specific claim.
type claim struct {
	tenant    string
	delegated bool
	// single is a name granted on its own (names:), inside another
	// tenant's zone: it covers that name only, never a name below it,
	// and it is no zone (handover.go).
	single bool
	pos    model.Pos
	path   string // where in site.cue, as a diagnostic's Path
}

// readOperator reads and checks the operator's file.
func readOperator(path string) (*operator, Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Diagnostics{{Pos: model.Pos{File: path}, Msg: fmt.Sprintf("cannot read the operator's file: %v; name it with --config FILE", err)}}
	}
	return operatorSource(path, data)
}

// operatorSource evaluates site.cue held in memory, named path.
func operatorSource(path string, data []byte) (*operator, Diagnostics) {
	pos := &positions{file: path}
	fail := func(line, col int, format string, args ...any) (*operator, Diagnostics) {
		return nil, Diagnostics{{Pos: model.Pos{File: path, Line: line, Col: col}, Msg: fmt.Sprintf(format, args...)}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(1, 1, "empty file; the operator's file starts with \"package site\" and declares providers, hosts, vaults and tenants")
	}
	f, err := parser.ParseFile(path, data)
	if err != nil {
		return nil, fromCUE(syntaxErrors(err), pos, cue.Value{})
	}
	pos = indexPositions(path, f)
	if d := operatorTop.check(path, f); len(d) > 0 {
		return nil, d
	}
	ctx := cuecontext.New()
	inst, err := siteSchema()
	if err != nil {
		return fail(1, 1, "%v", err)
	}
	if err := inst.AddSyntax(f); err != nil {
		return nil, fromCUE(cueErrors(err, nil), pos, cue.Value{})
	}
	v := ctx.BuildInstance(inst)
	if err := v.Validate(cue.Concrete(true), cue.Final()); err != nil {
		// Every field's errors, not only the first CUE meets.
		errs := cueErrors(err, nil)
		validateTree(v, nil, &errs)
		return nil, fromCUE(errs, pos, siteSchemaValue(ctx)).sort()
	}
	var raw rawSite
	if err := v.Decode(&raw); err != nil {
		return nil, fromCUE(cueErrors(err, nil), pos, siteSchemaValue(ctx))
	}
	return buildOperator(path, pos, &raw)
}

// operatorTop is what the operator's file holds at its top level:
// "package site" and its four fields.
var operatorTop = topLevel{
	pkg:     "site",
	fields:  map[string]bool{"vaults": true, "providers": true, "hosts": true, "tenants": true, "locks": true},
	unknown: "unknown top-level field; site.cue declares vaults, providers, hosts, tenants and locks",
	missing: "missing \"package site\" at the top of the operator's file",
	other:   "package %s; the operator's file is \"package site\" (tenant files are \"package tenants\")",
}

// buildOperator resolves names and checks what the schema cannot say:
// references to undeclared vaults, providers and hosts, domains that
// overlap between tenants, public suffixes; and it warns of endpoints
// a tenant's records could redirect (endpoints.go). It runs the checks
// in the order their results feed each other (stores before the
// providers that read from them, providers and hosts before the grants
// that name them), which reads best as one sequence.
func buildOperator(path string, pos *positions, raw *rawSite) (*operator, Diagnostics) {
	o := &operator{file: path, vaults: map[string]*model.Vault{}, providers: map[string]model.Provider{},
		hosts: map[string]string{}, pools: map[string]map[string]*model.Pool{}, images: map[string]map[string]*model.Image{}, grants: map[string]*grant{}, claims: map[string]claim{},
		nameservers: map[string]nameservers{}}
	var diags Diagnostics
	report := func(d Diagnostic) { diags = append(diags, d) }
	errorf := func(p []string, format string, args ...any) {
		report(Diagnostic{Pos: pos.pos(p...), Path: cuePath(p...), Msg: fmt.Sprintf(format, args...)})
	}
	o.readVaults(raw.Vaults, pos)
	o.readProviders(raw.Providers, pos, errorf)
	o.locks = readLocks(raw.Locks, o, pos, errorf)
	for _, name := range slices.Sorted(maps.Keys(raw.Hosts)) {
		o.hosts[name] = raw.Hosts[name].URI
		o.pools[name] = readPools(name, raw.Hosts[name].URI, raw.Hosts[name].Pools, pos, errorf)
		o.images[name] = readImages(name, raw.Hosts[name].Images, o.pools[name], pos, errorf)
	}
	for _, tenant := range slices.Sorted(maps.Keys(raw.Tenants)) {
		rg, tp := raw.Tenants[tenant], []string{"tenants", tenant}
		if err := CheckTenantName(tenant); err != nil {
			errorf(tp, "%v", err)
		}
		o.grants[tenant] = o.readGrant(tenant, rg, raw.Providers, pos, errorf)
		o.claimNames(tenant, rg.Domains, "domains", claim{}, rg, pos, errorf, report)
		o.claimNames(tenant, rg.Delegate, "delegate", claim{delegated: true}, rg, pos, errorf, report)
		o.claimNames(tenant, rg.Names, "names", claim{delegated: true, single: true}, rg, pos, errorf, report)
		if len(rg.Domains) == 0 && len(rg.Delegate) == 0 {
			errorf(tp, "tenant %s is granted no names, and a tenant's domain and zones must be at or below one: add domains: [...] (domains of its own), or delegate: [...] (names carved out of another tenant's domain)", tenant)
		}
	}
	diags = append(diags, o.overlaps()...)
	o.blocks = blocksByNet(o.claims)
	diags = append(diags, o.blockOverlaps()...)
	diags = append(diags, o.cidrOverlaps()...)
	if len(diags) > 0 {
		// Still the operator, less what was wrong: vet checks the
		// tenants against it and reports their errors beside these,
		// rather than one round of fixes per file.
		return o, diags
	}
	o.warnings = o.endpointWarnings(pos)
	o.plainIP = o.plainIPs(pos)
	return o, nil
}

// readVaults declares the stores site.cue names, before the providers
// whose credentials name them.
func (o *operator) readVaults(raw map[string]*rawVault, pos *positions) {
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		rv := raw[name]
		v := &model.Vault{Name: name, Addrs: rv.Addrs, Mount: rv.Mount, Token: rv.Token, Plaintext: rv.Plaintext, Pos: pos.pos("vaults", name)}
		if rv.AppRole != nil {
			v.AppRole = &model.AppRole{RoleID: rv.AppRole.RoleID, SecretID: rv.AppRole.SecretID, Mount: rv.AppRole.Mount}
		}
		o.vaults[name] = v
	}
}

// vaultRef positions credential c, written at p, and checks that the
// store it names is declared.
func (o *operator) vaultRef(p []string, c model.Credential, pos *positions, errorf func([]string, string, ...any)) {
	if c.Vault != nil {
		c.Vault.Pos = pos.pos(at(p, "vault")...)
	}
	if c.Vault != nil && o.vaults[c.Vault.Vault] == nil {
		errorf(append(p, "vault", "vault"), "no vault %q is declared; declare it under vaults, or use one of: %s", c.Vault.Vault, names(o.vaults))
	}
}

// readProviders declares the providers site.cue names, each one
// service, and the name servers it lists for them.
func (o *operator) readProviders(raw map[string]*rawProvider, pos *positions, errorf func([]string, string, ...any)) {
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		rp, pp := raw[name], []string{"providers", name}
		p := model.Provider{Name: name}
		switch {
		case rp.PowerDNS != nil && rp.Cloudflare != nil:
			errorf(pp, "a provider is one service; keep powerdns or cloudflare, and declare the other under a name of its own")
			continue
		case rp.PowerDNS != nil:
			r := rp.PowerDNS
			p.PowerDNS = &model.PowerDNS{URL: r.URL, Server: r.Server, APIKey: r.APIKey, DNSAddr: r.DNS, Plaintext: r.Plaintext}
			o.vaultRef(at(pp, "powerdns", "api_key"), r.APIKey, pos, errorf)
		case rp.Cloudflare != nil:
			r := rp.Cloudflare
			p.Cloudflare = &model.Cloudflare{Token: r.Token, APIURL: r.APIURL, Plaintext: r.Plaintext}
			o.vaultRef(at(pp, "cloudflare", "token"), r.Token, pos, errorf)
		default:
			errorf(pp, "say which service: powerdns: {url, api_key} or cloudflare: {token}")
			continue
		}
		p.Rate = readRate(rp.Rate, p, at(pp, "rate"), errorf)
		o.providers[name] = p
		if rp.Nameservers != nil {
			o.nameservers[name] = readNameservers(name, rp.Nameservers, pos, errorf)
		}
	}
}

// readNameservers canonicalises the name servers site.cue lists for
// provider, dropping repeats; the root and wildcards are no hosts.
func readNameservers(provider string, list []string, pos *positions, errorf func([]string, string, ...any)) nameservers {
	pp := []string{"providers", provider}
	ns := nameservers{pos: pos.pos(at(pp, "nameservers")...)}
	for i, h := range list {
		np := at(pp, "nameservers", fmt.Sprint(i))
		host, err := dnsname.Canonical(h, ".")
		switch {
		case err != nil:
			errorf(np, "%v", err)
		case host == ".":
			errorf(np, "name server %q is the DNS root, not a host; list the host names of the name servers that serve provider %s's zones", h, provider)
		case dnsname.IsWildcard(host):
			errorf(np, "name server %q is a wildcard; list the host names of the name servers that serve provider %s's zones", h, provider)
		case !slices.Contains(ns.hosts, host):
			ns.hosts = append(ns.hosts, host)
		}
	}
	return ns
}

// readGrant is what site.cue grants tenant: providers, hosts and their
// bridges, each checked against what site.cue declares, and the
// address space of its networks.
func (o *operator) readGrant(tenant string, rg *rawGrant, providers map[string]*rawProvider, pos *positions, errorf func([]string, string, ...any)) *grant {
	tp := []string{"tenants", tenant}
	g := &grant{providers: map[string]bool{}, hosts: map[string]bool{}, bridges: map[string]bool{}, publicSuffix: rg.AllowPublicSuffix,
		limits: readLimits(rg.Limits, pos, tp), pos: pos.pos(tp...)}
	for i, p := range rg.Providers {
		if _, ok := o.providers[p]; !ok && providers[p] == nil {
			errorf(at(tp, "providers", fmt.Sprint(i)), "no provider %q is declared; declare it under providers, or use one of: %s", p, names(providers))
		}
		g.providers[p] = true
	}
	for i, h := range rg.Hosts {
		if _, ok := o.hosts[h]; !ok {
			errorf(at(tp, "hosts", fmt.Sprint(i)), "no host %q is declared; declare it under hosts, or use one of: %s", h, names(o.hosts))
		}
		g.hosts[h] = true
	}
	for i, hb := range rg.Bridges {
		// The schema holds it to HOST/BRIDGE.
		h, br, _ := strings.Cut(hb, "/")
		switch _, ok := o.hosts[h]; {
		case !ok:
			errorf(at(tp, "bridges", fmt.Sprint(i)), "no host %q is declared for bridge %s; declare it under hosts, or use one of: %s", h, br, names(o.hosts))
		case !g.hosts[h]:
			errorf(at(tp, "bridges", fmt.Sprint(i)), "bridge %s is on host %s, which tenant %s is not granted; add %q to its hosts too, or remove the bridge", br, h, tenant, h)
		case !isInterfaceName(br):
			// The schema's pattern counts characters, Linux bytes.
			errorf(at(tp, "bridges", fmt.Sprint(i)), "bridge %q is not a Linux interface name: 1 to 15 bytes, not \".\" or \"..\", none of them '/', ':' or white space", br)
		}
		g.bridges[hb] = true
	}
	if rg.CIDRs != nil {
		g.cidrs = readCIDRs(*rg.CIDRs, tp, pos, errorf)
	}
	return g
}

// claimNames records the names in list, tenant's field (domains, or
// delegate or names, as kind says), as tenant's claims: each canonical, no
// public suffix unless granted, and none held by another grant
// already.
func (o *operator) claimNames(tenant string, list []string, field string, kind claim, rg *rawGrant, pos *positions,
	errorf func([]string, string, ...any), report func(Diagnostic)) {
	tp := []string{"tenants", tenant}
	for i, d := range list {
		dp := at(tp, field, fmt.Sprint(i))
		name, err := dnsname.Canonical(d, ".")
		if err != nil {
			errorf(dp, "%v", err)
			continue
		}
		if !rg.AllowPublicSuffix && isPublicSuffix(name) {
			errorf(dp, "%s is a public suffix: a tenant holding it could take names of everyone below it; grant a domain below it, or add allow_public_suffix: true to tenant %s if it really runs that suffix", name, tenant)
		}
		if prev, ok := o.claims[name]; ok {
			// Reported at the grant later in the file, the one
			// likelier to be new (site init appends its grant).
			held, again := prev, claim{tenant: tenant, delegated: kind.delegated, single: kind.single, pos: pos.pos(dp...), path: cuePath(dp...)}
			if again.pos.Line < held.pos.Line {
				held, again = again, held
				o.claims[name] = held
			}
			report(Diagnostic{Pos: again.pos, Related: []model.Pos{held.pos}, Path: again.path,
				Msg: fmt.Sprintf("%s is granted to tenant %s already; a name has one holder, so grant tenant %s another name, or remove one of the grants", name, held.tenant, again.tenant)})
			continue
		}
		o.claims[name] = claim{tenant: tenant, delegated: kind.delegated, single: kind.single, pos: pos.pos(dp...), path: cuePath(dp...)}
	}
}

func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "(none declared)"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

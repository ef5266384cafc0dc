package compiler

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
	sitefs "github.com/site-tools/site/schema/site"
)

// The operator's file, site.cue (package site), is the trust boundary:
// it alone names endpoints and credentials, and it says what each tenant
// may use. A tenant's file arrives as a pull request; nothing in it can
// steer where site sends a credential.

// rawSite is site.cue as CUE evaluated it, defaults applied.
type rawSite struct {
	Vaults    map[string]*rawVault    `json:"vaults"`
	Providers map[string]*rawProvider `json:"providers"`
	Hosts     map[string]*struct {
		URI    string               `json:"uri"`
		Pools  map[string]*rawPool  `json:"pools"`
		Images map[string]*rawImage `json:"images"`
	} `json:"hosts"`
	Tenants map[string]*rawGrant `json:"tenants"`
	Locks   *rawLocks            `json:"locks"`
}

type rawVault struct {
	Addrs   []string         `json:"addrs"`
	Mount   string           `json:"mount"`
	Token   model.Credential `json:"token"`
	AppRole *struct {
		RoleID   model.Credential `json:"role_id"`
		SecretID model.Credential `json:"secret_id"`
		Mount    string           `json:"mount"`
	} `json:"approle"`
	Plaintext bool `json:"plaintext"`
}

type rawProvider struct {
	Nameservers []string `json:"nameservers"`
	Rate        *rawRate `json:"rate"`
	PowerDNS    *struct {
		URL       string           `json:"url"`
		Server    string           `json:"server"`
		APIKey    model.Credential `json:"api_key"`
		DNS       string           `json:"dns"`
		Plaintext bool             `json:"plaintext"`
	} `json:"powerdns"`
	Cloudflare *struct {
		Token     model.Credential `json:"token"`
		APIURL    string           `json:"api_url"`
		Plaintext bool             `json:"plaintext"`
	} `json:"cloudflare"`
}

type rawGrant struct {
	Domains           []string  `json:"domains"`
	Delegate          []string  `json:"delegate"`
	Providers         []string  `json:"providers"`
	Hosts             []string  `json:"hosts"`
	Bridges           []string  `json:"bridges"`
	CIDRs             *[]string `json:"cidrs"`
	AllowPublicSuffix bool      `json:"allow_public_suffix"`
	Limits            rawLimits `json:"limits"`
}

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
	pos       model.Pos
	path      string // where in site.cue, as a diagnostic's Path
}

// siteSchema is a new instance of package site holding the embedded
// schema of the operator's file (schema/site).
func siteSchema() (*build.Instance, error) {
	inst := build.NewContext().NewInstance("site", nil)
	names, err := fs.Glob(sitefs.FS, "*.cue")
	if err != nil {
		return nil, fmt.Errorf("embedded site schema: %w", err)
	}
	for _, name := range names {
		src, err := fs.ReadFile(sitefs.FS, name)
		if err != nil {
			return nil, fmt.Errorf("embedded site schema: %w", err)
		}
		sf, err := parser.ParseFile("schema/site/"+name, src)
		if err != nil {
			return nil, fmt.Errorf("embedded site schema (a bug in site): %w", err)
		}
		if err := inst.AddSyntax(sf); err != nil {
			return nil, fmt.Errorf("embedded site schema (a bug in site): %w", err)
		}
	}
	return inst, nil
}

// siteSchemaValue is the schema of the operator's file on its own, for
// the fields a misspelt one may have meant. It is built only when the
// file has errors; the zero Value, which suggests nothing, if it fails.
func siteSchemaValue(ctx *cue.Context) cue.Value {
	inst, err := siteSchema()
	if err != nil {
		return cue.Value{}
	}
	return ctx.BuildInstance(inst)
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
	errorf := func(p []string, format string, args ...any) {
		diags = append(diags, Diagnostic{Pos: pos.pos(p...), Path: cuePath(p...), Msg: fmt.Sprintf(format, args...)})
	}
	for _, name := range sortedKeys(raw.Vaults) {
		rv := raw.Vaults[name]
		v := &model.Vault{Name: name, Addrs: rv.Addrs, Mount: rv.Mount, Token: rv.Token, Plaintext: rv.Plaintext, Pos: pos.pos("vaults", name)}
		if rv.AppRole != nil {
			v.AppRole = &model.AppRole{RoleID: rv.AppRole.RoleID, SecretID: rv.AppRole.SecretID, Mount: rv.AppRole.Mount}
		}
		o.vaults[name] = v
	}
	vaultRef := func(p []string, c model.Credential) {
		if c.Vault != nil {
			c.Vault.Pos = pos.pos(at(p, "vault")...)
		}
		if c.Vault != nil && o.vaults[c.Vault.Vault] == nil {
			errorf(append(p, "vault", "vault"), "no vault %q is declared; declare it under vaults, or use one of: %s", c.Vault.Vault, names(o.vaults))
		}
	}
	for _, name := range sortedKeys(raw.Providers) {
		rp, pp := raw.Providers[name], []string{"providers", name}
		p := model.Provider{Name: name}
		switch {
		case rp.PowerDNS != nil && rp.Cloudflare != nil:
			errorf(pp, "a provider is one service; keep powerdns or cloudflare, and declare the other under a name of its own")
			continue
		case rp.PowerDNS != nil:
			r := rp.PowerDNS
			p.PowerDNS = &model.PowerDNS{URL: r.URL, Server: r.Server, APIKey: r.APIKey, DNSAddr: r.DNS, Plaintext: r.Plaintext}
			vaultRef(at(pp, "powerdns", "api_key"), r.APIKey)
		case rp.Cloudflare != nil:
			r := rp.Cloudflare
			p.Cloudflare = &model.Cloudflare{Token: r.Token, APIURL: r.APIURL, Plaintext: r.Plaintext}
			vaultRef(at(pp, "cloudflare", "token"), r.Token)
		default:
			errorf(pp, "say which service: powerdns: {url, api_key} or cloudflare: {token}")
			continue
		}
		p.Rate = readRate(rp.Rate, p, at(pp, "rate"), errorf)
		o.providers[name] = p
		if rp.Nameservers != nil {
			ns := nameservers{pos: pos.pos(at(pp, "nameservers")...)}
			for i, h := range rp.Nameservers {
				np := at(pp, "nameservers", fmt.Sprint(i))
				host, err := dnsname.Canonical(h, ".")
				switch {
				case err != nil:
					errorf(np, "%v", err)
				case host == ".":
					errorf(np, "name server %q is the DNS root, not a host; list the host names of the name servers that serve provider %s's zones", h, name)
				case dnsname.IsWildcard(host):
					errorf(np, "name server %q is a wildcard; list the host names of the name servers that serve provider %s's zones", h, name)
				case !slices.Contains(ns.hosts, host):
					ns.hosts = append(ns.hosts, host)
				}
			}
			o.nameservers[name] = ns
		}
	}
	o.locks = readLocks(raw.Locks, o, pos, errorf)
	for _, name := range sortedKeys(raw.Hosts) {
		o.hosts[name] = raw.Hosts[name].URI
		o.pools[name] = readPools(name, raw.Hosts[name].URI, raw.Hosts[name].Pools, pos, errorf)
		o.images[name] = readImages(name, raw.Hosts[name].Images, o.pools[name], pos, errorf)
	}
	for _, tenant := range sortedKeys(raw.Tenants) {
		rg, tp := raw.Tenants[tenant], []string{"tenants", tenant}
		if err := CheckTenantName(tenant); err != nil {
			errorf(tp, "%v", err)
		}
		g := &grant{providers: map[string]bool{}, hosts: map[string]bool{}, bridges: map[string]bool{}, publicSuffix: rg.AllowPublicSuffix,
			limits: readLimits(rg.Limits, pos, tp), pos: pos.pos(tp...)}
		for i, p := range rg.Providers {
			if _, ok := o.providers[p]; !ok && raw.Providers[p] == nil {
				errorf(at(tp, "providers", fmt.Sprint(i)), "no provider %q is declared; declare it under providers, or use one of: %s", p, names(raw.Providers))
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
		o.grants[tenant] = g
		add := func(list []string, field string, delegated bool) {
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
					held, again := prev, claim{tenant: tenant, delegated: delegated, pos: pos.pos(dp...), path: cuePath(dp...)}
					if again.pos.Line < held.pos.Line {
						held, again = again, held
						o.claims[name] = held
					}
					diags = append(diags, Diagnostic{Pos: again.pos, Related: []model.Pos{held.pos}, Path: again.path,
						Msg: fmt.Sprintf("%s is granted to tenant %s already; a name has one holder, so grant tenant %s another name, or remove one of the grants", name, held.tenant, again.tenant)})
					continue
				}
				o.claims[name] = claim{tenant: tenant, delegated: delegated, pos: pos.pos(dp...), path: cuePath(dp...)}
			}
		}
		add(rg.Domains, "domains", false)
		add(rg.Delegate, "delegate", true)
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

// overlaps reports domains of two tenants where one lies below the
// other: only a delegation may carve a name out of another's domain.
func (o *operator) overlaps() Diagnostics {
	var diags Diagnostics
	names := sortedKeys(o.claims)
	sort.Slice(names, func(i, j int) bool {
		return len(names[i]) < len(names[j]) || len(names[i]) == len(names[j]) && names[i] < names[j]
	})
	for i, inner := range names {
		c := o.claims[inner]
		if c.delegated {
			continue
		}
		for _, outer := range names[:i] {
			oc := o.claims[outer]
			if oc.tenant != c.tenant && dnsname.IsSubdomain(inner, outer) {
				diags = append(diags, Diagnostic{Pos: c.pos, Related: []model.Pos{oc.pos}, Path: c.path,
					Msg: fmt.Sprintf("domain %s of tenant %s lies inside domain %s of tenant %s: granted domains never overlap; to carve it out of tenant %s's domain on purpose, move it from domains to delegate: [%q]", inner, c.tenant, outer, oc.tenant, oc.tenant, strings.TrimSuffix(inner, "."))})
			}
		}
	}
	return diags
}

// grantedBelow lists, sorted, the names strictly below name that
// site.cue grants a tenant other than tenant.
func (o *operator) grantedBelow(name, tenant string) []string {
	var out []string
	for n, c := range o.claims {
		if c.tenant != tenant && n != name && dnsname.IsSubdomain(n, name) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// holder returns the claim that covers name most specifically, and its
// name; ok is false when no tenant holds name.
func (o *operator) holder(name string) (string, claim, bool) {
	for n := name; ; {
		if c, ok := o.claims[n]; ok {
			return n, c, true
		}
		if n == "." {
			return "", claim{}, false
		}
		_, rest, _ := strings.Cut(n, ".")
		if rest == "" {
			rest = "."
		}
		n = rest
	}
}

func names[V any](m map[string]V) string {
	if len(m) == 0 {
		return "(none declared)"
	}
	return strings.Join(sortedKeys(m), ", ")
}

// OperatorFile is an operator's file held in memory and read on its
// own, for the commands that write specs beside it: site init (which
// grants a declared provider rather than declaring it again, and writes
// only the tenant's file when it is granted already) and site export
// (which names the provider that is the server it read, and leaves out
// what another tenant's grant holds).
type OperatorFile struct {
	o    *operator
	name string
	src  []byte
}

// ReadOperatorFile reads the operator's file name, whose bytes are src.
func ReadOperatorFile(name string, src []byte) (*OperatorFile, error) {
	o, diags := operatorSource(name, src)
	if len(diags) > 0 {
		return nil, diags
	}
	return &OperatorFile{o: o, name: name, src: src}, nil
}

// Source returns the file's name and its bytes as read, for a load
// with it (LoadBeside).
func (f *OperatorFile) Source() (name string, src []byte) { return f.name, f.src }

// Providers returns the providers the file declares, by name (none for
// a nil file: no operator's file, or one that does not load).
func (f *OperatorFile) Providers() map[string]model.Provider {
	if f == nil {
		return nil
	}
	return f.o.providers
}

// Hosts returns the libvirt hosts the file declares: name -> URI (none
// for a nil file).
func (f *OperatorFile) Hosts() map[string]string {
	if f == nil {
		return nil
	}
	return f.o.hosts
}

// Images returns the base images the file declares: host name ->
// "pool/volume" -> image (none for a nil file).
func (f *OperatorFile) Images() map[string]map[string]*model.Image {
	if f == nil {
		return nil
	}
	return f.o.images
}

// Grants reports whether the file grants tenant (false for a nil file).
func (f *OperatorFile) Grants(tenant string) bool { return f != nil && f.o.grants[tenant] != nil }

// Grantees returns every tenant the file grants, sorted (none for a nil
// file).
func (f *OperatorFile) Grantees() []string {
	if f == nil {
		return nil
	}
	out := make([]string, 0, len(f.o.grants))
	for t := range f.o.grants {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Holds reports whether the file grants tenant provider and each of
// names: the most specific grant covering each name is tenant's (false
// for a nil file). site export prints the lines for a grant only when
// the file does not hold them.
func (f *OperatorFile) Holds(tenant, provider string, names ...string) bool {
	if f == nil || f.o.grants[tenant] == nil || !f.o.grants[tenant].providers[provider] {
		return false
	}
	for _, n := range names {
		if _, c, ok := f.o.holder(n); !ok || c.tenant != tenant {
			return false
		}
	}
	return true
}

// AnotherTenants reports whether rs, a record of zone z, is another
// tenant's by the file's grants, as site vet judges it (see
// operator.anotherTenants): site export leaves such records out.
func (f *OperatorFile) AnotherTenants(rs *model.RRset, z *model.Zone) (held, tenant string, away bool) {
	return f.o.anotherTenants(rs, z, nil)
}

// CoversGranted reports whether rs, a record of zone z (which holds
// the zone's other records too), answers for a name the file grants a
// tenant other than z's below it, and says how, in site vet's words: a
// DNAME above that name, or a wildcard above it while z does not
// delegate it. It asks what vet asks (coversGranted), so site export
// leaves out exactly what vet would refuse.
func (f *OperatorFile) CoversGranted(z *model.Zone, rs *model.RRset) (why string, covers bool) {
	b := &builder{op: f.o, pos: &positions{}}
	if !b.coversGranted(nil, z, rs, nil) {
		return "", false
	}
	return b.diags[0].Msg, true
}

// grantHolder is holder as a caller that needs only the claim's
// tenant asks: the claim's name and its tenant.
func (o *operator) grantHolder(name string) (held, tenant string, ok bool) {
	held, c, ok := o.holder(name)
	return held, c.tenant, ok
}

// Package export writes live DNS records as a tenant spec in the language
// users write (the tenant schema in schema/), so that `site
// export` can adopt an existing zone: the PowerDNS and Cloudflare backends
// observe a zone and hand its RRsets to Render, which writes the tenant's
// file (the provider by name); RenderSite writes the lines the operator's
// site.cue needs for it (the provider's URL and credential reference, and
// the tenant's grant).
//
// The output is built as a CUE syntax tree and printed with
// cuelang.org/go/cue/format, so it parses by construction; it is
// deterministic (names in DNS order, values sorted), and it reads back
// through the compiler to the same records.
//
// Render writes every RRset it is given or fails, never leaves one out:
// the caller adopts what it exported, and an adopted RRset missing from
// the spec would be deleted by the next apply. So what the language
// cannot say is an error naming the RRset: types site does not manage
// (SOA, AFSDB, ...), TXT or CAA data that is not UTF-8 (CUE strings are
// UTF-8), and a name proxied for some types and not others. A type whose
// TTL differs from its name's others' is said with ttls. Check tells a
// caller beforehand which RRsets to leave out.
//
// Read and Adoption.Mark are site export's whole flow (read through the
// backend, render, vet; the caller writes; then mark), so the command
// keeps only its flags and output. Read reaches the live zone through
// backends.ZoneExporter: export is where data flows back from the live
// systems to CUE, and the only compiler package that knows a backend.
package export

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// Zone is one live zone to write as a tenant spec.
type Zone struct {
	Tenant string // the tenant's name, the key under tenants
	// Domain is the tenant's domain; the zone's name when empty.
	Domain string
	Zone   string // canonical zone name
	// Provider is where the zone lives, with credentials as references
	// (model.Credential cannot hold a secret). The tenant's file names
	// it (provider: Provider.Name); RenderSite declares it for site.cue
	// unless ProviderDeclared says site.cue has it under that name.
	Provider         model.Provider
	ProviderDeclared bool
	RRsets           []model.RRset // canonical names and values; empty RRsets are skipped
	// DNSSEC writes dnssec: true: the zone is signed.
	DNSSEC bool
	// Notes are written as comments above the zone's block, a line
	// each (an import says there what it left out and why).
	Notes []string
	// Apex is the zone's SOA and apex NS as the server serves them:
	// RenderZoneFile writes them first, so the master file is the whole
	// zone; Render never writes them (site sets them by its own rules).
	Apex []model.RRset
}

// Render returns the tenant spec for z: `package tenants` and
// `tenants: <name>: {domain, dns: zones: "<zone>": {provider, ttl,
// records}}`, the provider by name (RenderSite says what it names). The zone's ttl is the most common TTL among its names (the
// smaller one on a tie); a name with another TTL carries its own ttl,
// and a type with another than its name's its ttls entry.
func Render(z Zone) ([]byte, error) { return RenderZones([]Zone{z}) }

// RenderZones is Render for several zones of one tenant (zs[0]'s Tenant
// and Domain), one zone block each in the order given: what an import
// of a source holding several zones writes.
func RenderZones(zs []Zone) ([]byte, error) {
	if len(zs) == 0 {
		return nil, fmt.Errorf("export: no zone to write; give at least one")
	}
	var zones []any
	seen := map[string]bool{}
	for _, z := range zs {
		if z.Tenant != zs[0].Tenant {
			return nil, fmt.Errorf("export: zones of tenants %s and %s in one file; a tenant file holds one tenant", zs[0].Tenant, z.Tenant)
		}
		if seen[z.Zone] {
			return nil, fmt.Errorf("export: zone %s given twice; give each zone once", z.Zone)
		}
		seen[z.Zone] = true
		field, err := zoneField(z)
		if err != nil {
			return nil, err
		}
		zones = append(zones, field)
	}
	z := zs[0]
	domain := cmp.Or(z.Domain, z.Zone)
	tenant := []any{ast.NewIdent("domain"), ast.NewString(strings.TrimSuffix(domain, "."))}
	tenant = append(tenant, ast.NewIdent("dns"), ast.NewStruct(ast.NewIdent("zones"), ast.NewStruct(zones...)))
	file := &ast.File{Decls: []ast.Decl{
		&ast.Package{Name: ast.NewIdent("tenants")},
		&ast.Field{Label: ast.NewIdent("tenants"), Value: ast.NewStruct(label(z.Tenant), ast.NewStruct(tenant...))},
	}}
	out, err := format.Node(file, format.Simplify())
	if err != nil {
		return nil, fmt.Errorf("export: formatting the spec of zone %s: %w", z.Zone, err)
	}
	return out, nil
}

// zoneField writes z as the field "<zone>": {provider, ttl, records},
// its Notes as comments above it.
func zoneField(z Zone) (*ast.Field, error) {
	if z.Tenant == "" {
		return nil, fmt.Errorf("export: no tenant name; give the name the zone's records should belong to")
	}
	if z.Zone == "" || !strings.HasSuffix(z.Zone, ".") {
		return nil, fmt.Errorf("export: zone %q is not a canonical name; pass it absolute with a trailing dot", z.Zone)
	}
	if z.Provider.Name == "" {
		return nil, fmt.Errorf("export: the provider has no name; give the name site.cue calls it")
	}
	names, err := collect(z)
	if err != nil {
		return nil, err
	}
	ttl := commonTTL(names)

	var records []any
	for _, n := range names {
		records = append(records, label(dnsname.Relative(n.fqdn, z.Zone)), n.expr(ttl))
	}
	recordsField := &ast.Field{Label: ast.NewIdent("records"), Value: ast.NewStruct(records...)}
	zone := &ast.StructLit{Elts: []ast.Decl{
		&ast.Field{Label: ast.NewIdent("provider"), Value: ast.NewString(z.Provider.Name)},
		&ast.Field{Label: ast.NewIdent("ttl"), Value: number(int(ttl))},
	}}
	if z.DNSSEC {
		zone.Elts = append(zone.Elts, &ast.Field{Label: ast.NewIdent("dnssec"), Value: ast.NewBool(true)})
	}
	zone.Elts = append(zone.Elts, recordsField)
	field := &ast.Field{Label: ast.NewString(strings.TrimSuffix(z.Zone, ".")), Value: zone}
	if len(z.Notes) > 0 {
		group := &ast.CommentGroup{Doc: true}
		for _, line := range z.Notes {
			for _, l := range strings.Split(line, "\n") {
				group.List = append(group.List, &ast.Comment{Text: strings.TrimRight("// "+l, " ")})
			}
		}
		ast.AddComment(field, group)
	}
	return field, nil
}

// commonTTL is the TTL most names have; the smaller one wins a tie, and
// an empty zone gets the language's default.
func commonTTL(names []*name) uint32 {
	count := map[uint32]int{}
	for _, n := range names {
		if !n.proxied { // a proxied name says no ttl
			count[n.ttl]++
		}
	}
	best, most := uint32(300), 0
	for _, ttl := range slices.Sorted(maps.Keys(count)) {
		if count[ttl] > most {
			best, most = ttl, count[ttl]
		}
	}
	return best
}

// keywords are identifiers CUE reads as something else at the start of a
// field, so a record name spelt like one is quoted.
var keywords = map[string]bool{
	"if": true, "for": true, "in": true, "let": true, "import": true, "package": true,
	"true": true, "false": true, "null": true, "func": true,
}

// label writes a field name as a bare identifier when it is a plain word,
// and quoted otherwise ("@", "*.apps", "_dmarc", "a.b", "if").
func label(s string) ast.Label {
	if keywords[s] || ast.StringLabelNeedsQuoting(s) || strings.HasPrefix(s, "__") {
		return ast.NewString(s)
	}
	return ast.NewIdent(s)
}

func number(n int) *ast.BasicLit { return ast.NewLit(token.INT, strconv.Itoa(n)) }

// providerExpr writes the provider value: powerdns: {url, server,
// api_key} or cloudflare: {token, api_url}.
func providerExpr(p model.Provider) (ast.Expr, error) {
	switch {
	case p.PowerDNS != nil && p.Cloudflare != nil:
		return nil, fmt.Errorf("export: the provider names both powerdns and cloudflare; give one")
	case p.PowerDNS != nil:
		key, err := credential("powerdns api_key", p.PowerDNS.APIKey)
		if err != nil {
			return nil, err
		}
		fields := []any{"url", ast.NewString(p.PowerDNS.URL)}
		if p.PowerDNS.Server != "" && p.PowerDNS.Server != "localhost" {
			fields = append(fields, "server", ast.NewString(p.PowerDNS.Server))
		}
		fields = append(fields, "api_key", key)
		return ast.NewStruct("powerdns", ast.NewStruct(fields...)), nil
	case p.Cloudflare != nil:
		token, err := credential("cloudflare token", p.Cloudflare.Token)
		if err != nil {
			return nil, err
		}
		fields := []any{"token", token}
		if p.Cloudflare.APIURL != "" {
			fields = append(fields, "api_url", ast.NewString(p.Cloudflare.APIURL))
		}
		return ast.NewStruct("cloudflare", ast.NewStruct(fields...)), nil
	}
	return nil, fmt.Errorf("export: no provider; say where the zone lives (powerdns or cloudflare)")
}

// credential writes a reference, {env: NAME} or {vault: {vault, path, key}}.
func credential(what string, c model.Credential) (ast.Expr, error) {
	switch {
	case c.Env != "" && c.Vault != nil:
		return nil, fmt.Errorf("export: %s names both an environment variable and a vault secret; give one", what)
	case c.Env != "":
		return ast.NewStruct("env", ast.NewString(c.Env)), nil
	case c.Vault != nil && c.Vault.Vault == "":
		return nil, fmt.Errorf("export: %s names no vault; give the name site.cue calls the store", what)
	case c.Vault != nil:
		return ast.NewStruct("vault", ast.NewStruct("vault", ast.NewString(c.Vault.Vault), "path", ast.NewString(c.Vault.Path), "key", ast.NewString(c.Vault.Key))), nil
	}
	return nil, fmt.Errorf("export: %s has no reference; name an environment variable or a vault secret", what)
}

// RenderSite returns what the operator's site.cue needs for z: the
// provider, by its name, and the tenant's grant of the domain and the
// provider. They are fields to add to site.cue, without a package
// clause.
func RenderSite(z Zone) ([]byte, error) {
	provider, err := providerExpr(z.Provider)
	if err != nil {
		return nil, err
	}
	// The grant holds the zone, and the tenant's domain when that lies
	// outside it (a zone above the domain is held through the zone).
	domains := []ast.Expr{ast.NewString(strings.TrimSuffix(z.Zone, "."))}
	if d := cmp.Or(z.Domain, z.Zone); !dnsname.IsSubdomain(d, z.Zone) {
		domains = append(domains, ast.NewString(strings.TrimSuffix(d, ".")))
	}
	file := &ast.File{}
	if !z.ProviderDeclared {
		file.Decls = append(file.Decls, &ast.Field{Label: ast.NewIdent("providers"), Value: ast.NewStruct(label(z.Provider.Name), provider)})
	}
	file.Decls = append(file.Decls, &ast.Field{Label: ast.NewIdent("tenants"), Value: ast.NewStruct(label(z.Tenant), ast.NewStruct(
		"domains", ast.NewList(domains...),
		"providers", ast.NewList(ast.NewString(z.Provider.Name))))})
	out, err := format.Node(file, format.Simplify())
	if err != nil {
		return nil, fmt.Errorf("export: formatting the site.cue lines of zone %s: %w", z.Zone, err)
	}
	return out, nil
}

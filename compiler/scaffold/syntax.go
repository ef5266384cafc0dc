package scaffold

import (
	"fmt"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"
)

// tenantDecl is the tenant's one zone, on its provider, with a comment
// that teaches the record syntax.
func tenantDecl(o Options, domain, kind string) ast.Decl {
	records := field("records", ast.NewStruct())
	ast.AddComment(records, comment(
		`Records by name, then type. Names are relative to the zone ("www"),`,
		`"@" for the apex, or absolute with a trailing dot. For example:`,
		`  "@": MX: [{priority: 10, host: "mx.example.org."}]`,
		`  www: A: ["192.0.2.10"]`,
		`  docs: CNAME: "www.`+domain+`."`,
	))
	provider := field("provider", ast.NewString(o.Provider))
	ast.AddComment(provider, comment("a provider site.cue grants this tenant: its URL and key live there"))
	elts := []any{provider, field("ttl", ast.NewLit(token.INT, "300"))}
	if kind == PowerDNS {
		// Else PowerDNS names a.misconfigured.dns.server.invalid. as the
		// zone's primary, which secondaries and checkers complain of.
		soa := field("soa", path(field("primary", ast.NewString("ns1."+domain+"."))))
		ast.AddComment(soa, comment("the primary name server its SOA names: your PowerDNS server's name"))
		elts = append(elts, soa)
	}
	zone := ast.NewStruct(append(elts, records)...)
	tenant := ast.NewStruct(
		field("domain", ast.NewString(domain)),
		field("dns", path(field("zones", path(field(domain, zone))))),
	)
	top := field("tenants", path(field(o.Name, tenant)))
	ast.AddComment(top, comment(
		"Tenant "+o.Name+", scaffolded by site init. Check it with site vet, see",
		"what it would change with site diff, converge with site apply.",
	))
	return top
}

// providerDecl declares a provider of kind whose endpoint and
// credential are placeholders the operator edits: PowerDNS on loopback
// as make demo runs it, Cloudflare's public API; the secrets are read
// from environment variables.
func providerDecl(name, kind string) ast.Decl {
	if kind == Cloudflare {
		f := field("providers", path(field(name, path(field("cloudflare", path(field("token", env("CLOUDFLARE_API_TOKEN"))))))))
		ast.AddComment(f, comment(
			"PLACEHOLDER: Cloudflare's public API, with the API token read from",
			"$CLOUDFLARE_API_TOKEN (one that may edit the zone's DNS records).",
		))
		return f
	}
	f := field("providers", path(field(name, path(field("powerdns", ast.NewStruct(
		field("url", ast.NewString("http://127.0.0.1:8081")),
		field("server", ast.NewString("localhost")),
		field("api_key", env("PDNS_API_KEY")),
		field("dns", ast.NewString("127.0.0.1:5300")),
	))))))
	ast.AddComment(f, comment(
		"PLACEHOLDER: a PowerDNS on loopback, as make demo starts one. Point url",
		"at your server's HTTP API and dns at where it answers DNS queries; the",
		"API key is read from $PDNS_API_KEY.",
	))
	return f
}

// grantDecl is the tenant's entry: its domain and provider.
func grantDecl(o Options, domain string) ast.Decl {
	f := field("tenants", path(field(o.Name, ast.NewStruct(
		field("domains", ast.NewList(ast.NewString(domain))),
		field("providers", ast.NewList(ast.NewString(o.Provider))),
	))))
	ast.AddComment(f, comment("Tenant "+o.Name+" (tenants/"+o.Name+".cue) may use these."))
	return f
}

// formatFile formats decls as a CUE file of package pkg, or as bare
// fields to append to a file when pkg is empty.
func formatFile(pkg string, decls ...ast.Decl) ([]byte, error) {
	f := &ast.File{}
	if pkg != "" {
		f.Decls = append(f.Decls, &ast.Package{Name: ast.NewIdent(pkg)})
	}
	f.Decls = append(f.Decls, decls...)
	src, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("formatting the scaffold (a bug in site): %w", err)
	}
	return src, nil
}

// field is one field on a line of its own.
func field(label string, value ast.Expr) *ast.Field {
	f := &ast.Field{Label: ast.NewStringLabel(label), Value: value}
	ast.SetRelPos(f, token.Newline)
	return f
}

// path nests a single field the short way, a: b: {...}, without braces.
func path(f *ast.Field) ast.Expr {
	ast.SetRelPos(f, token.Blank)
	return &ast.StructLit{Elts: []ast.Decl{f}}
}

func env(name string) ast.Expr { return path(field("env", ast.NewString(name))) }

func comment(lines ...string) *ast.CommentGroup {
	cg := &ast.CommentGroup{Doc: true}
	for _, l := range lines {
		cg.List = append(cg.List, &ast.Comment{Text: "// " + l})
	}
	return cg
}

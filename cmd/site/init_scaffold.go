package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/export"
)

// initSite is the operator's file site init vets the scaffold with: the
// one --config names or FindConfig finds, or none yet.
type initSite struct {
	path string // "" when there is none yet
	src  []byte
}

// findInitConfig reads the operator's file for a tenant written into
// dir. Only --config must exist: without one, init prints a new
// site.cue for the operator.
func findInitConfig(dir string) (initSite, error) {
	path, err := compiler.FindConfig(configFlag, []string{dir})
	if err != nil {
		if configFlag != "" {
			// Not created: a mistyped --config would leave the real
			// operator's file without the grant.
			return initSite{}, fmt.Errorf("%w: init adds the grant to an existing operator's file; name that one, or leave --config out and init prints a whole site.cue to start from", err)
		}
		return initSite{}, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return initSite{}, err
	}
	return initSite{path: path, src: src}, nil
}

// generated is what init writes: the tenant's file, and the lines the
// operator's file needs for it (none when it grants the tenant already).
type generated struct {
	name    string
	tenant  []byte
	site    []byte
	granted bool
}

// scaffold generates the tenant spec and its grant, and vets them
// together as site vet would (file is the tenant file's name); what it
// returns passes vet.
func scaffold(o initOptions, site initSite, file string) (generated, error) {
	domain := strings.ToLower(strings.TrimSuffix(o.domain, "."))
	if domain == "" {
		return generated{}, fmt.Errorf("--domain is missing or empty; give tenant %s's DNS domain, e.g. site init %s --domain %s.example.net", o.name, o.name, o.name)
	}
	if want := o.name + ".cue"; filepath.Base(file) != want {
		return generated{}, fmt.Errorf("--out %s: a tenant's file is named like the tenant, %s", file, want)
	}
	tenant, err := formatFile("tenants", tenantDecl(o, domain))
	if err != nil {
		return generated{}, err
	}
	// A tenant site.cue grants already (the operator wrote its grant
	// first, say to delegate it a name, which init does not write) is
	// vetted against that grant: a second one would claim its names twice.
	var read *compiler.OperatorFile
	if site.path != "" {
		read, _ = compiler.ReadOperatorFile(site.path, site.src) // nil: vet below says why
	}
	granted := read.Grants(o.name)
	var siteLines []byte
	if !granted {
		var decls []ast.Decl
		if _, declared := read.Providers()[o.provider]; !declared {
			decls = append(decls, providerDecl(o.provider))
		}
		decls = append(decls, grantDecl(o, domain))
		if siteLines, err = formatFile("", decls...); err != nil {
			return generated{}, err
		}
		if site.path == "" {
			if siteLines, err = formatFile("site", decls...); err != nil {
				return generated{}, err
			}
		}
	}
	// By construction these parse; vetting them too turns a bad NAME or
	// --domain into the same message vet would give, before any write.
	siteName := site.path
	if siteName == "" {
		siteName = compiler.ConfigName
	}
	if err := export.Vet(siteName, append(append(site.src, '\n'), siteLines...), file, tenant); err != nil {
		return generated{}, fmt.Errorf("cannot scaffold tenant %q with domain %q: %w", o.name, o.domain, err)
	}
	return generated{name: o.name, tenant: tenant, site: siteLines, granted: granted}, nil
}

func tenantDecl(o initOptions, domain string) ast.Decl {
	records := field("records", ast.NewStruct())
	ast.AddComment(records, comment(
		`Records by name, then type. Names are relative to the zone ("www"),`,
		`"@" for the apex, or absolute with a trailing dot. For example:`,
		`  "@": MX: [{priority: 10, host: "mx.example.org."}]`,
		`  www: A: ["192.0.2.10"]`,
		`  docs: CNAME: "www.`+domain+`."`,
	))
	provider := field("provider", ast.NewString(o.provider))
	ast.AddComment(provider, comment("a provider site.cue grants this tenant: its URL and key live there"))
	zone := ast.NewStruct(provider, field("ttl", ast.NewLit(token.INT, "300")), records)
	tenant := ast.NewStruct(
		field("domain", ast.NewString(domain)),
		field("dns", path(field("zones", path(field(domain, zone))))),
	)
	top := field("tenants", path(field(o.name, tenant)))
	ast.AddComment(top, comment(
		"Tenant "+o.name+", scaffolded by site init. Check it with site vet, see",
		"what it would change with site diff, converge with site apply.",
	))
	return top
}

// providerDecl declares a PowerDNS provider on loopback, its key read
// from PDNS_API_KEY: the operator edits it to the real server.
func providerDecl(name string) ast.Decl {
	f := field("providers", path(field(name, path(field("powerdns", ast.NewStruct(
		field("url", ast.NewString("http://127.0.0.1:8081")),
		field("server", ast.NewString("localhost")),
		field("api_key", env("PDNS_API_KEY")),
	))))))
	ast.AddComment(f, comment("A PowerDNS server on loopback; point url and api_key at the real one."))
	return f
}

// grantDecl is the tenant's entry: its domain and provider.
func grantDecl(o initOptions, domain string) ast.Decl {
	f := field("tenants", path(field(o.name, ast.NewStruct(
		field("domains", ast.NewList(ast.NewString(domain))),
		field("providers", ast.NewList(ast.NewString(o.provider))),
	))))
	ast.AddComment(f, comment("Tenant "+o.name+" (tenants/"+o.name+".cue) may use these."))
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

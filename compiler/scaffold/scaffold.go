// Package scaffold generates what site init writes: a tenant's file
// with one DNS zone, and what the operator's file needs for it (the
// tenant's grant, the provider's declaration when it has none, or a
// whole operator's file when there is none yet). Both are built as CUE
// syntax trees and vetted together, as site vet would, before the
// caller writes a byte: what Generate returns passes vet.
package scaffold

import (
	"fmt"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/ast"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/export"
)

// Kinds of provider a scaffold can declare, and the name each gets in
// the operator's file when the user gives none.
const (
	PowerDNS   = "powerdns"
	Cloudflare = "cloudflare"
)

// DefaultName is the provider name of each kind when none is given.
var DefaultName = map[string]string{PowerDNS: "pdns", Cloudflare: "cf"}

// Options are the choices of site init.
type Options struct {
	Name, Domain string
	Provider     string // the provider's name in the operator's file
	// Kind is the kind of provider to declare when the operator's file
	// does not declare Provider yet (PowerDNS when empty); when it does,
	// a Kind given must be that provider's.
	Kind string
}

// Operator is the operator's file the scaffold is vetted with.
type Operator struct {
	Path   string // its name (compiler.ConfigName when it is to be made)
	Src    []byte
	Exists bool // false: Generate returns a whole file to create at Path
}

// Result is what init writes.
type Result struct {
	Tenant []byte // the tenant's file
	// Site is what the operator's file needs: lines to append to it, or
	// a whole file when it does not exist; empty when it grants the
	// tenant already.
	Site     []byte
	Granted  bool   // the operator's file grants the tenant already
	Kind     string // the kind of the zone's provider
	Declares bool   // Site declares the provider
}

// Generate builds the tenant's file (named file) and the operator's
// lines for o, and vets them together with op.
func Generate(o Options, op Operator, file string) (Result, error) {
	domain := strings.ToLower(strings.TrimSuffix(o.Domain, "."))
	if domain == "" {
		return Result{}, fmt.Errorf("--domain is missing or empty; give tenant %s's DNS domain, e.g. site init %s --domain %s.example.net", o.Name, o.Name, o.Name)
	}
	if want := o.Name + ".cue"; filepath.Base(file) != want {
		return Result{}, fmt.Errorf("--out %s: a tenant's file is named like the tenant, %s", file, want)
	}
	// A tenant the operator's file grants already (the operator wrote
	// its grant first, say to delegate it a name, which init does not
	// write) is vetted against that grant: a second one would claim its
	// names twice.
	var read *compiler.OperatorFile
	if op.Exists {
		read, _ = compiler.ReadOperatorFile(op.Path, op.Src) // nil: vet below says why
	}
	res := Result{Granted: read.Grants(o.Name), Kind: o.Kind}
	if res.Kind == "" {
		res.Kind = PowerDNS
	}
	if p, declared := read.Providers()[o.Provider]; declared {
		if o.Kind != "" && p.Kind() != o.Kind {
			return Result{}, fmt.Errorf("--provider-kind %s: %s declares provider %s as a %s provider already; leave --provider-kind out, or name another --provider", o.Kind, op.Path, o.Provider, p.Kind())
		}
		res.Kind = p.Kind()
	} else if res.Kind != PowerDNS && res.Kind != Cloudflare {
		return Result{}, fmt.Errorf("--provider-kind %q: use %s or %s", o.Kind, PowerDNS, Cloudflare)
	} else {
		res.Declares = !res.Granted
	}
	tenant, err := formatFile("tenants", tenantDecl(o, domain, res.Kind))
	if err != nil {
		return Result{}, err
	}
	if !res.Granted {
		var decls []ast.Decl
		if res.Declares {
			decls = append(decls, providerDecl(o.Provider, res.Kind))
		}
		decls = append(decls, grantDecl(o, domain))
		pkg := ""
		if !op.Exists {
			pkg = "site"
		}
		if res.Site, err = formatFile(pkg, decls...); err != nil {
			return Result{}, err
		}
	}
	// By construction these parse; vetting them too turns a bad NAME or
	// --domain into the same message vet would give, before any write.
	site := append(append(append([]byte(nil), op.Src...), '\n'), res.Site...)
	if err := export.Vet(op.Path, site, file, tenant); err != nil {
		return Result{}, fmt.Errorf("cannot scaffold tenant %q with domain %q: %w", o.Name, o.Domain, err)
	}
	res.Tenant = tenant
	return res, nil
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/token"
	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/model"
)

func init() { register(newInitCmd) }

// initOptions are the choices of `site init`.
type initOptions struct {
	name     string
	domain   string
	provider string
}

func newInitCmd() *cobra.Command {
	var opts initOptions
	var out string
	cmd := &cobra.Command{
		Use:   "init NAME --domain D",
		Short: "Scaffold a tenant spec that passes site vet",
		Long: `init writes a new tenant NAME with one DNS zone, D, hosted by the chosen
provider, with credentials read from environment variables. The file is
generated from a syntax tree and vetted before it is written, so it
always passes site vet; a NAME or zone that a spec already in the
target directory (tenants/) declares is refused, since vetting them
together would fail.

--out names the file (default tenants/NAME.cue; "-" writes to stdout);
an existing file is never overwritten.

  site init acme --domain acme.example.net
  site init shop --domain shop.example --provider cloudflare --out -

Exit codes: 0 written, 1 a NAME or --domain vet would refuse or that
is taken, or the file exists.`,
		Args: oneArg("tenant", "site init NAME --domain D, e.g. site init acme --domain acme.example.net"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if out == "" {
				out = filepath.Join("tenants", opts.name+".cue")
			}
			src, err := scaffold(opts)
			if err != nil {
				return withCode(exitError, err)
			}
			specDir := filepath.Dir(out)
			if out == "-" {
				specDir = defaultDir
			} else if _, err := os.Stat(out); err == nil {
				return withCode(exitError, errExists(out)) // before "taken": the file is the tenant
			}
			if err := checkTaken(specDir, opts); err != nil {
				return withCode(exitError, err)
			}
			if out == "-" {
				_, err := cmd.OutOrStdout().Write(src)
				return err
			}
			if err := writeNew(out, src); err != nil {
				return withCode(exitError, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s; check it with: site vet %s\n", out, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.domain, "domain", "", "the tenant's DNS domain, e.g. sjc.example.net (required)")
	cmd.Flags().StringVar(&opts.provider, "provider", "powerdns", "DNS provider of the zone: powerdns or cloudflare")
	cmd.Flags().StringVar(&out, "out", "", `file to write (default tenants/NAME.cue; "-" for stdout)`)
	return cmd
}

// scaffold generates the spec and vets it; what it returns passes vet.
func scaffold(o initOptions) ([]byte, error) {
	var provider ast.Expr
	switch o.provider {
	case "powerdns":
		provider = ast.NewStruct(
			field("url", ast.NewString("http://127.0.0.1:8081")),
			field("server", ast.NewString("localhost")),
			field("api_key", env("PDNS_API_KEY")),
		)
	case "cloudflare":
		provider = ast.NewStruct(field("token", env("CLOUDFLARE_API_TOKEN")))
	default:
		return nil, fmt.Errorf("--provider %q: use powerdns or cloudflare", o.provider)
	}
	domain := strings.ToLower(strings.TrimSuffix(o.domain, "."))
	if domain == "" {
		return nil, fmt.Errorf("--domain is missing or empty; give tenant %s's DNS domain, e.g. site init %s --domain %s.example.net", o.name, o.name, o.name)
	}

	records := field("records", ast.NewStruct())
	ast.AddComment(records, comment(
		`Records by name, then type. Names are relative to the zone ("www"),`,
		`"@" for the apex, or absolute with a trailing dot. For example:`,
		`  "@": MX: [{priority: 10, host: "mx.example.org."}]`,
		`  www: A: ["192.0.2.10"]`,
		`  docs: CNAME: "www.`+domain+`."`,
	))
	zone := ast.NewStruct(
		field("provider", path(field(o.provider, provider))),
		field("ttl", ast.NewLit(token.INT, "300")),
		records,
	)
	tenant := ast.NewStruct(
		field("domain", ast.NewString(domain)),
		field("dns", path(field("zones", path(field(domain, zone))))),
	)
	top := field("tenants", path(field(o.name, tenant)))
	ast.AddComment(top, comment(
		"Tenant "+o.name+", scaffolded by site init. Check it with site vet, see",
		"what it would change with site diff, converge with site apply.",
	))
	f := &ast.File{Decls: []ast.Decl{&ast.Package{Name: ast.NewIdent("tenants")}, top}}
	src, err := format.Node(f)
	if err != nil {
		return nil, fmt.Errorf("formatting the scaffold (a bug in site): %w", err)
	}
	// By construction this parses; vetting it too turns a bad NAME or
	// --domain into the same message vet would give, before any write.
	if err := export.Vet(o.name+".cue", src); err != nil {
		return nil, fmt.Errorf("cannot scaffold tenant %q with domain %q: %w", o.name, o.domain, err)
	}
	return src, nil
}

// checkTaken refuses a tenant name or zone that a spec below dir
// already declares: the scaffold vets on its own, but site vet of the
// directory it lands in would report two tenants of one name, or two
// writers of one zone. A directory that is missing or does not load is
// not init's to judge; vet will say what is wrong with it.
func checkTaken(dir string, o initOptions) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	spec, err := compiler.Load([]string{filepath.Join(dir, "...")})
	if err != nil {
		return nil
	}
	zone, err := dnsname.Canonical(o.domain, ".")
	if err != nil {
		return nil // scaffold refused it already
	}
	at := func(p model.Pos) string {
		p = relPos(p)
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	for _, t := range spec.Tenants {
		if t.Name == o.name {
			return fmt.Errorf("tenant %s already exists at %s: choose another NAME", o.name, at(t.Pos))
		}
		for _, z := range t.Zones {
			if z.Name == zone {
				return fmt.Errorf("zone %s is already declared by tenant %s at %s: a zone has one writer, so choose another --domain or add records to that tenant", zone, t.Name, at(z.Pos))
			}
		}
	}
	return nil
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

func errExists(path string) error {
	return fmt.Errorf("%s exists; site init never overwrites a file: choose another --out, or remove it", path)
}

// writeNew writes src to path, creating its directory, and refuses to
// replace an existing file.
func writeNew(path string, src []byte) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errExists(path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package main

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/scaffold"
)

func init() { register(newInitCmd) }

func newInitCmd() *cobra.Command {
	var opts scaffold.Options
	var out string
	cmd := &cobra.Command{
		Use:   "init NAME --domain D",
		Short: "Start a project, or add a tenant to one, that passes site vet",
		Long: `init writes tenant NAME's spec, tenants/NAME.cue, with one DNS zone, D,
on the provider site.cue calls --provider.

Where no site.cue is found (here or in a parent), init starts a project:
it also writes site.cue here, declaring a provider whose endpoint and
credential are marked placeholders (PowerDNS on loopback, its key from
$PDNS_API_KEY; with --provider-kind cloudflare, Cloudflare's API, its
token from $CLOUDFLARE_API_TOKEN), and prints the next commands.

With a site.cue, init says what it must add for the tenant (its grant,
and the provider when site.cue lacks it); with --config FILE it adds
them to FILE itself. When site.cue grants NAME already, init adds
nothing. What init writes is vetted together first, so it passes
site vet; a NAME or zone taken already is refused, and an existing
file is never overwritten. "--out -" prints the tenant's file on stdout
and site.cue's lines on stderr, and writes no file.


Exit codes: 0 written, 1 a NAME or --domain vet would refuse or that
is taken, or the file exists. See site help operator.`,
		Example: `  site init acme --domain acme.example.net
  site init shop --domain shop.example --provider-kind cloudflare
  site init web --domain web.example --provider cf --config site.cue`,
		Args: oneArg("tenant", "site init NAME --domain D, e.g. site init acme --domain acme.example.net"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if !cmd.Flags().Changed("provider") {
				opts.Provider = scaffold.DefaultName[cmp.Or(opts.Kind, scaffold.PowerDNS)]
			}
			if err := runInit(cmd, opts, out); err != nil {
				return withCode(exitError, err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", "", "the tenant's DNS domain, e.g. acme.example.net (required)")
	f.StringVar(&opts.Provider, "provider", "pdns", "the name of the zone's provider in site.cue")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	f.StringVar(&opts.Kind, "provider-kind", "", "powerdns (default) or cloudflare, for a new provider")
	_ = cmd.RegisterFlagCompletionFunc("provider-kind", completeWords("powerdns\ta PowerDNS HTTP API", "cloudflare\tthe Cloudflare API"))
	f.StringVar(&out, "out", "", `file to write (default tenants/NAME.cue; "-" for stdout)`)
	return cmd
}

// runInit generates the scaffold for opts, written to out, and writes
// it; a nil error is exit 0.
func runInit(cmd *cobra.Command, opts scaffold.Options, out string) error {
	if opts.Kind != "" && scaffold.DefaultName[opts.Kind] == "" {
		return fmt.Errorf("--provider-kind %q: use %s or %s", opts.Kind, scaffold.PowerDNS, scaffold.Cloudflare)
	}
	if out == "" {
		out = filepath.Join(tenantsDir(), opts.Name+".cue")
	}
	specDir, name := filepath.Dir(out), out
	if out == "-" {
		specDir, name = defaultDir, opts.Name+".cue"
	}
	op, err := findInitConfig(specDir)
	if err != nil {
		return err
	}
	g, err := scaffold.Generate(opts, op, name)
	if err != nil {
		return err
	}
	if out != "-" {
		if _, err := os.Stat(out); err == nil {
			return errExists(out) // before "taken": the file is the tenant
		}
	}
	if op.Exists {
		if err := checkTaken(op.Path, specDir, opts.Name); err != nil {
			return err
		}
	} else if spec := aSpecIn(specDir); spec != "" && out != "-" {
		// The new site.cue would grant only NAME, and vet of the
		// directory would refuse the tenants already there.
		return fmt.Errorf("%s holds tenant specs already (%s) and no site.cue grants them: write the operator's file for them first (or name it with --config FILE), then run site init again", specDir, spec)
	}
	return writeScaffold(cmd, out, op, g, opts)
}

// tenantsDir is where a tenant's file goes: the tenants directory beside
// the operator's file found from here, so that init from anywhere in the
// project writes where vet reads; tenants/ here when there is none yet.
func tenantsDir() string {
	if dir, ok := tenantsBesideConfig(); ok {
		return dir
	}
	return defaultDir
}

// findInitConfig finds the operator's file for a tenant written into
// dir, as vet would find it. With none, init makes one: here, or at
// --config. A --config that does not exist while vet would find another
// is refused: most likely a typo, which would leave the real operator's
// file without the grant.
func findInitConfig(dir string) (scaffold.Operator, error) {
	found, findErr := compiler.FindConfig("", []string{dir})
	path := configFlag
	switch {
	case path == "" && findErr != nil:
		return scaffold.Operator{Path: compiler.ConfigName}, nil
	case path == "":
		path = found
	default:
		if _, err := os.Stat(path); err != nil {
			if findErr == nil {
				return scaffold.Operator{}, fmt.Errorf("--config %s: %w, and site finds the operator's file %s from here: name that one, or leave --config out", path, err, found)
			}
			return scaffold.Operator{Path: path}, nil
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return scaffold.Operator{}, err
	}
	return scaffold.Operator{Path: path, Src: src, Exists: true}, nil
}

// checkTaken refuses a tenant name that a spec below dir already
// declares: site vet of the directory the scaffold lands in would report
// one tenant in two files. (A domain another tenant holds is refused
// when the grant is vetted with site.cue.) A directory that is missing
// or does not load is not init's to judge; vet will say what is wrong
// with it.
func checkTaken(config, dir, name string) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	spec, err := compiler.Load(config, []string{filepath.Join(dir, "...")})
	if err != nil {
		return nil
	}
	for _, t := range spec.Tenants {
		if t.Name == name {
			p := relPos(t.Pos)
			return fmt.Errorf("tenant %s already exists at %s:%d:%d: choose another NAME", name, p.File, p.Line, p.Col)
		}
	}
	return nil
}

// aSpecIn returns a .cue file below dir, "" when there is none (or no
// dir).
func aSpecIn(dir string) string {
	var found string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".cue" {
			found = path
			return fs.SkipAll
		}
		return nil
	})
	return found
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
)

func init() { register(newInitCmd) }

// initOptions are the choices of `site init`.
type initOptions struct {
	name     string
	domain   string
	provider string // a provider name in site.cue
}

func newInitCmd() *cobra.Command {
	var opts initOptions
	var out string
	cmd := &cobra.Command{
		Use:   "init NAME --domain D",
		Short: "Scaffold a tenant spec, and its grant in site.cue, that pass site vet",
		Long: `init writes a new tenant NAME with one DNS zone, D, on the provider
that site.cue calls --provider (default pdns), and says what the
operator's file, site.cue, must add for it: the tenant's grant (its
domain and provider) and, when site.cue does not declare the provider
yet, a PowerDNS provider of that name. With --config FILE it adds them
to FILE itself; otherwise it prints them (to stderr with --out -).
When site.cue grants NAME already (say, only a name delegated out of
another tenant's domain, a grant init does not write), init adds
nothing and writes the tenant's file for that grant.
Both are generated from syntax trees and vetted together before a byte
is written, so they always pass site vet; a NAME or zone that a spec
already in the target directory (tenants/) declares is refused, since
vetting them together would fail.

--out names the file (default tenants/NAME.cue; "-" writes to stdout);
a tenant file is named like its tenant, and an existing file is never
overwritten.


Exit codes: 0 written, 1 a NAME or --domain vet would refuse or that
is taken, or the file exists. See site help operator.`,
		Example: `  site init acme --domain acme.example.net
  site init shop --domain shop.example --provider cf --config site.cue`,
		Args: oneArg("tenant", "site init NAME --domain D, e.g. site init acme --domain acme.example.net"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if out == "" {
				out = filepath.Join(defaultDir, opts.name+".cue")
			}
			specDir := filepath.Dir(out)
			if out == "-" {
				specDir = defaultDir
			}
			site, err := findInitConfig(specDir)
			if err != nil {
				return withCode(exitError, err)
			}
			name := out
			if out == "-" {
				name = opts.name + ".cue"
			}
			g, err := scaffold(opts, site, name)
			if err != nil {
				return withCode(exitError, err)
			}
			if out != "-" {
				if _, err := os.Stat(out); err == nil {
					return withCode(exitError, errExists(out)) // before "taken": the file is the tenant
				}
			}
			if err := checkTaken(site.path, specDir, opts); err != nil {
				return withCode(exitError, err)
			}
			return writeScaffold(cmd, out, site, g)
		},
	}
	cmd.Flags().StringVar(&opts.domain, "domain", "", "the tenant's DNS domain, e.g. sjc.example.net (required)")
	cmd.Flags().StringVar(&opts.provider, "provider", "pdns", "the name site.cue gives the zone's DNS provider")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	cmd.Flags().StringVar(&out, "out", "", `file to write (default tenants/NAME.cue; "-" for stdout)`)
	return cmd
}

// writeScaffold writes the tenant file (or prints it) and adds the
// grant to site.cue with --config, or prints it for the operator.
func writeScaffold(cmd *cobra.Command, out string, site initSite, g generated) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if out == "-" {
		if _, err := stdout.Write(g.tenant); err != nil {
			return err
		}
	} else if err := writeNew(out, g.tenant); err != nil {
		return withCode(exitError, err)
	}
	if configFlag != "" && !g.granted {
		if err := appendFile(site.path, g.site); err != nil {
			return withCode(exitError, err)
		}
	}
	if out == "-" {
		if configFlag == "" {
			_, err := stderr.Write(g.site)
			return err
		}
		return nil
	}
	if g.granted {
		fmt.Fprintf(stdout, "wrote %s; %s grants tenant %s already, so it needs nothing more; check it with: site vet %s\n", out, site.path, g.name, out)
		return nil
	}
	if configFlag != "" {
		fmt.Fprintf(stdout, "wrote %s and added tenant %s to %s; check them with: site vet %s\n", out, g.name, site.path, out)
		return nil
	}
	where := "a new site.cue beside " + filepath.Dir(out) + string(filepath.Separator) + " or above it"
	if site.path != "" {
		where = site.path
	}
	// vet refuses a tenant site.cue does not grant: the grant comes first.
	fmt.Fprintf(stdout, "wrote %s; site vet refuses it until site.cue grants tenant %s, so first the operator adds this to %s (or run site init with --config FILE, which adds it):\n\n%s\nthen check it with: site vet %s\n",
		out, g.name, where, g.site, out)
	return nil
}

// appendFile adds src to the end of the operator's file, which vet has
// already checked with it.
func appendFile(path string, src []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(append([]byte("\n"), src...)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkTaken refuses a tenant name that a spec below dir already
// declares: site vet of the directory the scaffold lands in would report
// one tenant in two files. (A domain another tenant holds is refused
// when the grant is vetted with site.cue.) A directory that is missing
// or does not load is not init's to judge; vet will say what is wrong
// with it.
func checkTaken(config, dir string, o initOptions) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || config == "" {
		return nil
	}
	spec, err := compiler.Load(config, []string{filepath.Join(dir, "...")})
	if err != nil {
		return nil
	}
	for _, t := range spec.Tenants {
		if t.Name == o.name {
			p := relPos(t.Pos)
			return fmt.Errorf("tenant %s already exists at %s:%d:%d: choose another NAME", o.name, p.File, p.Line, p.Col)
		}
	}
	return nil
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

package main

import (
	"cmp"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/scaffold"
)

func init() { register(newInitCmd) }

func newInitCmd() *cobra.Command {
	var opts scaffold.Options
	var out string
	cmd := &cobra.Command{
		Use:     "init NAME --domain D",
		Short:   "Start a project, or add a tenant to one, that passes site vet",
		Long:    longHelp("init"),
		Example: examples("init"),
		Args:    oneArg("tenant", "site init NAME --domain D, e.g. site init acme --domain acme.example.net"),
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
	out, specDir, name, err := scaffold.Target(configFlag, opts, out)
	if err != nil {
		return err
	}
	op, err := scaffold.FindOperator(configFlag, specDir)
	if err != nil {
		return err
	}
	g, err := scaffold.Generate(opts, op, name)
	if err != nil {
		return err
	}
	if err := scaffold.CheckPlace(op, out, specDir, opts.Name, relPos); err != nil {
		return err
	}
	return writeScaffold(cmd, out, op, g, opts)
}

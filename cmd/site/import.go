package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/export/importzone"
)

func init() { register(newImportCmd) }

func newImportCmd() *cobra.Command {
	var req importzone.Request
	usage := "site import bind example.test.zone --tenant lab --provider pdns"
	cmd := &cobra.Command{
		Use:     "import bind|octodns|dnscontrol FILE --tenant NAME --provider NAME [--zone ZONE]",
		Short:   "Write another tool's zone data (BIND, octoDNS, DNSControl) as a tenant spec",
		Long:    longHelp("import"),
		Example: examples("import"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("name the source's format (%s) and its file: %s", strings.Join(importzone.Formats, ", "), usage)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range []struct{ name, v string }{{"--tenant", req.Tenant}, {"--provider", req.Provider}} {
				if f.v == "" {
					return withCode(exitError, fmt.Errorf("%s is required: %s", f.name, usage))
				}
			}
			req.Format = args[0]
			if err := importzone.CheckFormat(req.Format); err != nil {
				return withCode(exitError, err)
			}
			src, name, err := importzone.ReadSource(args[1], cmd.InOrStdin())
			if err != nil {
				return withCode(exitError, err)
			}
			req.Src, req.File = src, name
			out, zones, err := importzone.Import(req)
			if err != nil {
				return withCode(exitError, err)
			}
			if _, err := cmd.OutOrStdout().Write(out); err != nil {
				return withCode(exitError, err)
			}
			importzone.WriteSiteNeeds(cmd.ErrOrStderr(), req, zones)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Zone, "zone", "", "the zone to import of several in FILE (default: all)")
	f.StringVar(&req.Tenant, "tenant", "", "tenant the records belong to")
	f.StringVar(&req.Provider, "provider", "", "the provider, by the name site.cue gives it, the zone will live on")
	return cmd
}

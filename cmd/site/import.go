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
		Use:   "import bind|octodns|dnscontrol FILE --tenant NAME --provider NAME [--zone ZONE]",
		Short: "Write another tool's zone data (BIND, octoDNS, DNSControl) as a tenant spec",
		Long: `import reads the zone data another DNS tool keeps and writes a tenant spec
(CUE) on stdout that says the same records, names, types, values and
TTLs: a BIND master file, an octoDNS YamlProvider zone file, or the JSON
of dnscontrol print-ir. FILE - reads stdin. With several zones in FILE
(print-ir's domains), --zone picks one; without it every zone is written,
a zone block each. The spec names the provider by --provider; site.cue
must declare it and grant the tenant the zones, as stderr says.

The SOA and the apex NS are left out, as site export leaves them out:
the server keeps its own SOA, and a zone's apex NS come with it on its
provider. The spec says so in comments, with the soa: fields and the NS
line that would set them as FILE has them.

What site's language cannot say is refused, never dropped: a type it
lacks, an RRset whose records disagree on the TTL, octoDNS's dynamic or geo
answers, a DNSControl record proxied through Cloudflare. Every such
record is listed with FILE:LINE (print-ir: its domain and number) and
nothing is written. The spec is vetted as site vet would before it is
printed. It reads FILE only: nothing is changed anywhere.

Exit codes: 0 written, 1 an error (FILE unreadable, or records site
cannot say: all listed, nothing written). See site help migration.`,
		Example: `  site import bind example.test.zone --tenant lab --provider pdns > tenants/lab.cue
  site import octodns example.test.yaml --tenant lab --provider pdns
  site import dnscontrol ir.json --zone example.test --tenant lab --provider pdns`,
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

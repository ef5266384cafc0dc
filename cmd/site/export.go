package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

func init() { register(newExportCmd) }

// exportSubcommands holds one constructor per provider that site export
// can read; each provider's file appends its own in init
// (export_powerdns below, export_cloudflare.go).
var exportSubcommands = []func() *cobra.Command{newExportPowerDNSCmd}

func newExportCmd() *cobra.Command {
	var req exportRequest
	cmd := &cobra.Command{
		Use:     "export (PROVIDER ... | --provider NAME ...)",
		Short:   "Write an existing zone as a tenant spec, to adopt it",
		Long:    longHelp("export"),
		Example: examples("export"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return withCode(exitError, fmt.Errorf("site export cannot read from %q: name one of %s", args[0], strings.Join(exportProviders(cmd), ", ")))
			}
			if req.byName != "" {
				// The kind is the one site.cue gives the provider.
				req.required = []struct{ name, v string }{{"--zone", req.zone}, {"--tenant", req.tenant}}
				return exportByName(cmd, req)
			}
			return withCode(exitError, fmt.Errorf("name the provider to read from: %s (or --provider NAME, as site.cue declares it)", strings.Join(exportProviders(cmd), ", ")))
		},
	}
	req.addFlags(cmd, "example.org", "records")
	for _, sub := range exportSubcommands {
		cmd.AddCommand(sub())
	}
	return cmd
}

func exportProviders(cmd *cobra.Command) []string {
	var out []string
	for _, c := range cmd.Commands() {
		out = append(out, c.Name())
	}
	return out
}

func newExportPowerDNSCmd() *cobra.Command {
	var url, server, keyEnv string
	req := exportRequest{provider: "powerdns"}
	cmd := &cobra.Command{
		Use:     "powerdns (--provider NAME | --url URL) --zone ZONE --tenant NAME",
		Short:   "Write a PowerDNS zone as a tenant spec (read-only unless --adopt)",
		Long:    longHelp("export-powerdns"),
		Example: examples("export-powerdns"),
		Args:    noArgs("give the zone with --zone and the server with --provider or --url"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.required = []struct{ name, v string }{{"--zone", req.zone}, {"--tenant", req.tenant}}
			if req.byName != "" {
				return exportByName(cmd, req, "url", "server", "api-key-env")
			}
			req.required = append(req.required, []struct{ name, v string }{{"--url (or --provider NAME)", url}, {"--api-key-env", keyEnv}}...)
			req.where = model.Provider{PowerDNS: &model.PowerDNS{URL: model.PowerDNSBase(url), Server: server, APIKey: model.Credential{Env: keyEnv}}}
			return exportZone(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "PowerDNS HTTP API URL, e.g. http://127.0.0.1:8081 (or .../api/v1)")
	f.StringVar(&server, "server", "localhost", "PowerDNS server id")
	f.StringVar(&keyEnv, "api-key-env", "PDNS_API_KEY", "environment variable holding the API key")
	req.addFlags(cmd, "example.org", "rrsets")
	return cmd
}

// exportRequest is what every `site export PROVIDER` gathers from its
// flags; exportZone does the rest the same way for every provider.
type exportRequest struct {
	provider     string // runBackends.providers key
	zone, tenant string
	domain, out  string
	adopt, force bool
	all          bool   // every zone of the provider, one file each in out
	format       string // cue or zone
	required     []struct{ name, v string }
	where        model.Provider // the provider flags, credentials by name
	declaredIn   string         // the site.cue that declares where as where.Name, if one does
	byName       string         // --provider: where is site.cue's provider of that name
	secret       *graph.Step    // reads where's credential from Vault; nil: from the environment
	operator     *compiler.OperatorFile
}

// addFlags defines the flags every provider's export has; zoneExample
// and what ("rrsets", "records") speak the provider's language.
func (r *exportRequest) addFlags(cmd *cobra.Command, zoneExample, what string) {
	f := cmd.Flags()
	f.StringVar(&r.byName, "provider", "", "a provider site.cue declares (in place of the server flags)")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	f.StringVar(&r.zone, "zone", "", "zone to export, e.g. "+zoneExample)
	f.BoolVar(&r.all, "all", false, "every zone of the provider, a file each in the directory --out names")
	f.StringVar(&r.tenant, "tenant", "", "tenant the records belong to")
	f.StringVar(&r.domain, "domain", "", "the tenant's domain (default: the zone)")
	f.StringVar(&r.out, "out", "", "write the spec to FILE, never over one unless --force")
	f.BoolVar(&r.force, "force", false, "let --out replace an existing file")
	f.BoolVar(&r.adopt, "adopt", false, "also mark the exported "+what+" as the tenant's (a server change)")
	f.StringVar(&r.format, "format", "cue", "cue (a tenant spec) or zone (a BIND master file)")
}

// exportByName exports from the provider --provider names: where and
// its credential as site.cue declares them. flags are the provider
// flags --provider stands for.
func exportByName(cmd *cobra.Command, req exportRequest, flags ...string) error {
	suggest := func(kind string) string {
		return fmt.Sprintf("site export %s --provider %s --zone %s --tenant %s", kind, req.byName, cmp.Or(req.zone, "ZONE"), cmp.Or(req.tenant, "NAME"))
	}
	d, err := byProvider(cmd, req.provider, req.byName, suggest, flags...)
	if err != nil {
		return withCode(exitError, err)
	}
	req.provider = d.p.Kind() // the kind site.cue gives, for site export --provider NAME
	req.where, req.secret, req.declaredIn, req.operator = d.p, d.secret, d.config, d.read
	return exportZone(cmd, req)
}

// check checks the flags before anything is read.
func (req exportRequest) check() error {
	for _, f := range req.required {
		if f.v == "" && !(req.all && f.name == "--zone") {
			return fmt.Errorf("%s is required", f.name)
		}
	}
	return export.CheckFlags(req.format, req.adopt, req.all, req.zone, req.domain, req.out)
}

// exportZone reads the live zone, writes the tenant spec, and (with
// --adopt) marks what it exported as the tenant's.
func exportZone(cmd *cobra.Command, req exportRequest) error {
	if err := req.check(); err != nil {
		return withCode(exitError, err)
	}
	if req.all {
		return exportAll(cmd, req)
	}
	if err := export.CheckOut(req.out, req.force); err != nil {
		return withCode(exitError, err)
	}
	s, err := openExport(cmd, req, req.out)
	if err != nil {
		return withCode(exitError, err)
	}
	defer s.close()
	a, err := s.Read(cmd.Context(), req.zone, req.out)
	if err != nil {
		return withCode(exitError, err)
	}
	if err := s.Write(a, req.out); err != nil {
		return withCode(exitError, err)
	}
	if err := s.Mark(cmd.Context(), a); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

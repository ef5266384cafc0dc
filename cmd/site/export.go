package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/export"
	"github.com/site-tools/site/compiler/model"
)

func init() { register(newExportCmd) }

// exportSubcommands holds one constructor per provider that site export
// can read; each provider's file appends its own in init
// (export_powerdns below, export_cloudflare.go).
var exportSubcommands = []func() *cobra.Command{newExportPowerDNSCmd}

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export PROVIDER ...",
		Short: "Write an existing zone as a tenant spec, to adopt it",
		Long: `export reads a live zone and writes a tenant spec (CUE) that wants
exactly what the zone serves: it passes site vet, and site diff then
says No changes. Records the language cannot say are left out, listed on
stderr, and never touched by site.

  site export powerdns --url http://127.0.0.1:8081 --zone example.org --tenant office1
  site export cloudflare --zone example.net --tenant web --out tenants/web.cue

Exit codes: 0 written and marked, 1 an error (nothing is marked unless
the spec was written first).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return withCode(exitError, fmt.Errorf("site export cannot read from %q: name one of %s", args[0], strings.Join(exportProviders(cmd), ", ")))
			}
			return withCode(exitError, fmt.Errorf("name the provider to read from: %s", strings.Join(exportProviders(cmd), ", ")))
		},
	}
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
		Use:   "powerdns --url URL --zone ZONE --tenant NAME [--api-key-env PDNS_API_KEY] [--out FILE]",
		Short: "Write a PowerDNS zone as a tenant spec and mark its records as the tenant's",
		Long: `export powerdns reads ZONE from the PowerDNS HTTP API at URL with one
GET and writes tenant NAME's spec for it to FILE (stdout when none).

Then it adopts the zone: every exported rrset gets the tenant's owner
marker (an rrset comment; what the server serves does not change), in
one PATCH, so site diff says No changes and site apply may later update
or delete these records. --no-mark skips that: site diff then shows each
rrset as "= adopt" until the first site apply.

Left out, and so never touched by site: record types the language
cannot say (SOA, HINFO, LOC, ...), rrsets with disabled records,
rrsets another site tenant owns, and the apex NS (it came with the zone;
declare it to manage it).

The API key is read from the environment variable --api-key-env names,
and the spec refers to it by that name; its value is never printed.

  site export powerdns --url http://127.0.0.1:8081 --zone example.org \
      --tenant office1 --out tenants/office1.cue`,
		Args: noArgs("give the zone with --zone and the server with --url"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.required = []struct{ name, v string }{{"--url", url}, {"--zone", req.zone}, {"--tenant", req.tenant}, {"--api-key-env", keyEnv}}
			req.where = model.Provider{PowerDNS: &model.PowerDNS{URL: url, Server: server, APIKey: model.Credential{Env: keyEnv}}}
			return exportZone(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "PowerDNS HTTP API base URL, e.g. http://127.0.0.1:8081")
	f.StringVar(&server, "server", "localhost", "PowerDNS server id")
	f.StringVar(&keyEnv, "api-key-env", "PDNS_API_KEY", "environment variable holding the API key (the spec names it, never its value)")
	req.addFlags(cmd, "example.org", "rrsets")
	return cmd
}

// exportRequest is what every `site export PROVIDER` gathers from its
// flags; exportZone does the rest the same way for every provider.
type exportRequest struct {
	provider     string // runBackends.providers key
	zone, tenant string
	domain, out  string
	noMark       bool
	required     []struct{ name, v string }
	where        model.Provider // the provider flags, credentials by name
}

// addFlags defines the flags every provider's export has; zoneExample
// and what ("rrsets", "records") speak the provider's language.
func (r *exportRequest) addFlags(cmd *cobra.Command, zoneExample, what string) {
	f := cmd.Flags()
	f.StringVar(&r.zone, "zone", "", "zone to export, e.g. "+zoneExample)
	f.StringVar(&r.tenant, "tenant", "", "tenant the records belong to")
	f.StringVar(&r.domain, "domain", "", "the tenant's domain (default: the zone)")
	f.StringVar(&r.out, "out", "", "write the spec to FILE instead of stdout")
	f.BoolVar(&r.noMark, "no-mark", false, "only write the spec; do not put the owner marker on the zone's "+what)
}

// exportZone reads the live zone, writes the tenant spec, and (unless
// --no-mark) marks what it exported as the tenant's.
func exportZone(cmd *cobra.Command, req exportRequest) error {
	for _, f := range req.required {
		if f.v == "" {
			return withCode(exitError, fmt.Errorf("%s is required", f.name))
		}
	}
	run := backends.NewRun()
	bk := openBackends(run)
	defer closeBackends(bk, cmd.ErrOrStderr())
	x, _ := bk.providers[req.provider].(backends.ZoneExporter)
	if x == nil {
		return withCode(exitError, fmt.Errorf("this build of site has no %s backend that can export", req.provider))
	}
	ctx := cmd.Context()
	a, err := export.Read(ctx, x, export.Request{Tenant: req.tenant, Zone: req.zone, Domain: req.domain, Provider: req.where}, run)
	if err != nil {
		return withCode(exitError, err)
	}
	stderr := cmd.ErrOrStderr()
	for _, s := range a.Skipped {
		fmt.Fprintln(stderr, "left out:", s)
	}
	if req.out == "" {
		if _, err := cmd.OutOrStdout().Write(a.Source); err != nil {
			return withCode(exitError, err)
		}
	} else {
		if err := os.WriteFile(req.out, a.Source, 0o644); err != nil {
			return withCode(exitError, fmt.Errorf("write the spec: %w", err))
		}
		fmt.Fprintf(stderr, "wrote %s: %d RRsets of zone %s for tenant %s\n", req.out, len(a.Zone.RRsets), a.Zone.Name, req.tenant)
	}
	if req.noMark {
		// Some may carry the tenant's marker already (an earlier export);
		// the snapshot does not say which, so no count is given.
		fmt.Fprintf(stderr, "not marked (--no-mark): site diff shows each RRset not yet marked for tenant %s as adopt until site apply marks it\n", req.tenant)
		return nil
	}
	n, err := a.Mark(ctx)
	if err != nil {
		return withCode(exitError, err)
	}
	fmt.Fprintf(stderr, "marked %d RRsets as owned by tenant %s (comments only; served data unchanged)\n", n, req.tenant)
	return nil
}

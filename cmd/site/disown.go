package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/leftovers"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func init() { register(newDisownCmd) }

// newDisownCmd is site disown: the way back from export --adopt and
// apply. Its subcommands name the server by --provider, as site.cue
// declares it, or with the same flags export uses, because a zone may
// be disowned on a server site.cue no longer declares.
func newDisownCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "disown PROVIDER ZONE [--provider NAME] [--name NAME ...] [--ack GATE-DNS-DISOWN]",
		Short:   "Remove site's owner markers from a zone (dry run unless acknowledged)",
		Long:    longHelp("disown"),
		Example: examples("disown"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withCode(exitError, fmt.Errorf("name the provider to disown in: powerdns, cloudflare"))
		},
	}
	cmd.AddCommand(newDisownPowerDNSCmd(), newDisownCloudflareCmd())
	return cmd
}

func newDisownPowerDNSCmd() *cobra.Command {
	var url, server, keyEnv string
	req := disownRequest{provider: "powerdns", unit: "record set"}
	cmd := &cobra.Command{
		Use:     "powerdns ZONE (--provider NAME | --url URL) [--ack GATE-DNS-DISOWN]",
		Short:   "Remove site's owner markers (rrset comments) from a PowerDNS zone",
		Long:    longHelp("disown-powerdns"),
		Example: examples("disown-powerdns"),
		Args:    oneArg("zone", "site disown powerdns example.org --provider pdns"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case req.byName != "":
				d, err := byProvider(cmd, "powerdns", req.byName, disownSuggest(args[0], req.byName), "url", "server", "api-key-env")
				if err != nil {
					return withCode(exitError, err)
				}
				req.where, req.secret = d.p, d.secret
			case url == "":
				return withCode(exitError, fmt.Errorf("name the server: --provider NAME (a provider site.cue declares) or --url URL: %s",
					compiler.DisownExample(configFlag, "powerdns", args[0], "--url http://127.0.0.1:8081")))
			default:
				req.where = model.Provider{PowerDNS: &model.PowerDNS{URL: model.PowerDNSBase(url), Server: server, APIKey: model.Credential{Env: keyEnv}}}
			}
			return disownZone(cmd, args[0], req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.byName, "provider", "", "the PowerDNS provider site.cue declares (instead of --url)")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	f.StringVar(&url, "url", "", "PowerDNS HTTP API base URL, e.g. http://127.0.0.1:8081")
	f.StringVar(&server, "server", "localhost", "PowerDNS server id")
	f.StringVar(&keyEnv, "api-key-env", "PDNS_API_KEY", "environment variable holding the API key")
	req.addFlags(cmd)
	return cmd
}

func newDisownCloudflareCmd() *cobra.Command {
	var tokenEnv, apiURL string
	req := disownRequest{provider: "cloudflare", unit: "record"}
	cmd := &cobra.Command{
		Use:     "cloudflare ZONE [--provider NAME] [--ack GATE-DNS-DISOWN]",
		Short:   "Remove site's owner markers (record comments) from a Cloudflare zone",
		Long:    longHelp("disown-cloudflare"),
		Example: examples("disown-cloudflare"),
		Args:    oneArg("zone", "site disown cloudflare example.net"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if req.byName != "" {
				d, err := byProvider(cmd, "cloudflare", req.byName, disownSuggest(args[0], req.byName), "token-env", "api-url")
				if err != nil {
					return withCode(exitError, err)
				}
				req.where, req.secret = d.p, d.secret
			} else {
				req.where = model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Env: tokenEnv}, APIURL: apiURL}}
			}
			return disownZone(cmd, args[0], req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.byName, "provider", "", "the Cloudflare provider site.cue declares")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeProviders)
	f.StringVar(&tokenEnv, "token-env", "CLOUDFLARE_API_TOKEN", "variable holding the API token")
	f.StringVar(&apiURL, "api-url", "", "Cloudflare API base URL (default: the public v4 API)")
	req.addFlags(cmd)
	return cmd
}

// disownRequest is what every `site disown PROVIDER` gathers.
type disownRequest struct {
	provider string // runBackends.providers key
	unit     string // what Unmark counts: "record set" (PowerDNS) or "record" (Cloudflare)
	names    []string
	acks     []string
	where    model.Provider
	byName   string      // --provider: where is site.cue's provider of that name
	secret   *graph.Step // reads where's credential from Vault; nil: from the environment
}

func (r *disownRequest) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&r.names, "name", nil, "only the markers at this name (www, @, www.example.org.; repeatable)")
	f.StringArrayVar(&r.acks, "ack", nil, "GATE-DNS-DISOWN: remove the markers listed (else change nothing)")
	_ = cmd.RegisterFlagCompletionFunc("ack", completeGates("disown"))
}

// disownZone lists the markers to remove and, when GATE-DNS-DISOWN is
// acknowledged, removes them.
func disownZone(cmd *cobra.Command, zoneArg string, req disownRequest) error {
	sel, err := leftovers.SelectDisown(zoneArg, req.names)
	if err != nil {
		return withCode(exitError, err)
	}
	zone := sel.Zone
	acked, err := plan.AcksGate("disown", req.acks, plan.GateDNSDisown)
	if err != nil {
		return withCode(exitError, err)
	}
	one, err := providers.OpenOne[backends.Disowner](cmd.Context(), req.provider, "disown", req.byName, req.secret)
	if err != nil {
		return withCode(exitError, err)
	}
	defer closeBackends(one.Set, cmd.ErrOrStderr())
	z := &model.Zone{Name: zone, Provider: req.where}
	ctx := cmd.Context()
	u := leftovers.Unmarking{D: one.B, Zone: z, Sel: sel, Run: one.Run, Unit: req.unit, Provider: req.byName, Rel: relPos,
		Claims: func() ([]*model.Zone, error) { return claimsOf(zone, req.byName) }}
	listed, err := u.Unmark(ctx, cmd.OutOrStdout(), acked)
	if err != nil {
		return withCode(exitError, err)
	}
	if listed > 0 && !acked {
		return withCode(exitGated, fmt.Errorf("GATE-DNS-DISOWN is not acknowledged, so nothing was changed: to remove these markers, run the same command with --ack %s", plan.GateDNSDisown))
	}
	return nil
}

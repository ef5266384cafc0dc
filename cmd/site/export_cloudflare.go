package main

import (
	"github.com/spf13/cobra"

	"github.com/site-tools/site/compiler/model"
)

func init() { exportSubcommands = append(exportSubcommands, newExportCloudflareCmd) }

func newExportCloudflareCmd() *cobra.Command {
	var tokenEnv, apiURL string
	req := exportRequest{provider: "cloudflare"}
	cmd := &cobra.Command{
		Use:   "cloudflare --zone ZONE --tenant NAME [--token-env CLOUDFLARE_API_TOKEN] [--api-url URL] [--out FILE [--force]] [--adopt]",
		Short: "Write a Cloudflare zone as a tenant spec (read-only unless --adopt)",
		Long: `export cloudflare reads every record of ZONE through the Cloudflare v4
API and writes tenant NAME's spec for it to FILE (stdout when none); an
existing FILE is refused unless --force.

It changes nothing in the zone unless --adopt is given. With --adopt it
then adopts the zone: every exported record gets the tenant's owner
marker in its comment (what the zone serves does not change; a record's
previous comment is replaced, since Cloudflare keeps one per record),
through the batch endpoint, so site diff says No changes and site apply
may later update or delete these records. Without it, site diff shows
each RRset as "= adopt" until the first site apply. site disown removes
the markers.

Left out, and so never touched by site: record types the language
cannot say, records another site tenant owns, RRsets whose records
have different TTLs, and names proxied for some types and not others.
Types at one name with different TTLs are kept (ttls says them). A
proxied name is exported with proxied: true. A
CNAME at the apex (which Cloudflare flattens) is exported as an ALIAS.

The API token is read from the environment variable --token-env names,
and the spec refers to it by that name; its value is never printed.
--api-url points at another API base URL (a test server) and is
written into the spec as api_url.

  site export cloudflare --zone example.net --tenant web \
      --token-env CLOUDFLARE_API_TOKEN --out tenants/web.cue --adopt`,
		Args: noArgs("give the zone with --zone"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.required = []struct{ name, v string }{{"--zone", req.zone}, {"--tenant", req.tenant}, {"--token-env", tokenEnv}}
			req.where = model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Env: tokenEnv}, APIURL: apiURL}}
			return exportZone(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&tokenEnv, "token-env", "CLOUDFLARE_API_TOKEN", "environment variable holding the API token (the spec names it, never its value)")
	f.StringVar(&apiURL, "api-url", "", "Cloudflare API base URL (default: the public v4 API); written into the spec")
	req.addFlags(cmd, "example.net", "records")
	return cmd
}

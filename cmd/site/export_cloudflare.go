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
		Use:   "cloudflare --zone ZONE --tenant NAME [--provider NAME] [--out FILE] [--adopt]",
		Short: "Write a Cloudflare zone as a tenant spec (read-only unless --adopt)",
		Long: `export cloudflare reads every record of ZONE through the Cloudflare v4 API
and writes tenant NAME's spec for it (stdout without --out). With --adopt
it then puts the owner marker in every exported record's comment. Left
out: types the language cannot say, another tenant's records, RRsets
whose records differ in TTL, and names proxied for some types only. A proxied name is exported with
proxied: true, an apex CNAME as an ALIAS. The token is read from the
variable --token-env names (the spec names it, never its value), or
token and api_url come from site.cue with --provider NAME.
See site help export, cloudflare.`,
		Example: `  site export cloudflare --zone example.net --tenant web
  site export cloudflare --zone example.net --tenant web \
      --token-env CLOUDFLARE_API_TOKEN --out tenants/web.cue --adopt`,
		Args: noArgs("give the zone with --zone"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.required = []struct{ name, v string }{{"--zone", req.zone}, {"--tenant", req.tenant}}
			if req.byName != "" {
				return exportByName(cmd, req, "token-env", "api-url")
			}
			req.required = append(req.required, struct{ name, v string }{"--token-env", tokenEnv})
			req.where = model.Provider{Cloudflare: &model.Cloudflare{Token: model.Credential{Env: tokenEnv}, APIURL: apiURL}}
			return exportZone(cmd, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&tokenEnv, "token-env", "CLOUDFLARE_API_TOKEN", "variable holding the API token")
	f.StringVar(&apiURL, "api-url", "", "API base URL (default: the public v4 API), into the spec")
	req.addFlags(cmd, "example.net", "records")
	return cmd
}

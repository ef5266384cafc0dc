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
		Use:     "cloudflare --zone ZONE --tenant NAME [--provider NAME] [--out FILE] [--adopt]",
		Short:   "Write a Cloudflare zone as a tenant spec (read-only unless --adopt)",
		Long:    longHelp("export-cloudflare"),
		Example: examples("export-cloudflare"),
		Args:    noArgs("give the zone with --zone"),
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

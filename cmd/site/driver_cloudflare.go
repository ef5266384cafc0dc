package main

import "github.com/site-tools/site/backends/cloudflare"

func init() {
	providerDrivers["cloudflare"] = cloudflare.New()
	backendNames["cloudflare"] = "Cloudflare DNS (cloudflare-go v0.119.0); batch writes, comment owner marker; SITE_CLOUDFLARE_API_URL overrides the API URL"
}

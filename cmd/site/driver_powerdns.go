package main

import (
	"github.com/site-tools/site/backends/powerdns"
)

func init() {
	providerDrivers["powerdns"] = &powerdns.Driver{}
	backendNames["powerdns"] = "PowerDNS Authoritative HTTP API (go-powerdns v3.17.0); verified over DNS at " + powerdns.EnvDNSAddr + " (host:port, or off), else the API host on port 53"
}

package model

// The providers that serve a zone: the operator's, resolved from the
// names a zone gives (provider: "pdns", or several: ["pdns", "pdns2"]).

// Provider says which DNS service hosts a zone: the operator's provider
// the zone names, resolved. Exactly one of PowerDNS and Cloudflare is set.
type Provider struct {
	Name       string // its name in site.cue
	PowerDNS   *PowerDNS
	Cloudflare *Cloudflare
	// Rate is the provider's request budget (site.cue's rate, else the
	// service's documented limit); nil: none.
	Rate *Rate
}

// Credential is what site authenticates to the provider with: the
// PowerDNS API key or the Cloudflare token.
func (p Provider) Credential() Credential {
	switch {
	case p.PowerDNS != nil:
		return p.PowerDNS.APIKey
	case p.Cloudflare != nil:
		return p.Cloudflare.Token
	}
	return Credential{}
}

// Kind names the provider ("powerdns" or "cloudflare").
func (p Provider) Kind() string {
	switch {
	case p.PowerDNS != nil:
		return "powerdns"
	case p.Cloudflare != nil:
		return "cloudflare"
	}
	return ""
}

// PowerDNS is a PowerDNS Authoritative server's HTTP API.
type PowerDNS struct {
	URL    string
	Server string // server id, "localhost" by default
	APIKey Credential
	// DNSAddr is where apply verifies what the server serves (host:port,
	// or "off"); empty: the environment, else the API host on port 53.
	DNSAddr string
	// the operator allows http:// to a non-loopback address (site.cue: plaintext: true)
	Plaintext bool
}

// Cloudflare is the Cloudflare v4 API.
type Cloudflare struct {
	Token  Credential
	APIURL string // empty: Cloudflare's public API
	// the operator allows http:// to a non-loopback address (site.cue: plaintext: true)
	Plaintext bool
}

// Served lists the providers that serve z: Providers when it names
// several, else Provider alone.
func (z *Zone) Served() []Provider {
	if len(z.Providers) > 1 {
		return z.Providers
	}
	return []Provider{z.Provider}
}

// OnProvider is z as the step that writes it to p sees it: the same
// records, with p as its Provider.
func (z *Zone) OnProvider(p Provider) *Zone {
	c := *z
	c.Provider = p
	return &c
}

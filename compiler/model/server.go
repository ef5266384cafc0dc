package model

import (
	"net"
	"net/url"
	"strings"
)

// ServerURL is raw, an API URL, as the server it reaches, whichever way site.cue
// spells it: 127.0.0.1 and localhost (or ::1) are one server, as are a
// host in capitals, the default port spelt out and a trailing slash.
// Taken for two servers, a zone a tenant declares through one provider
// would be read by site leftovers through the other as no tenant's, and
// site export would declare the server again under another name.
func ServerURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return strings.TrimRight(raw, "/")
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		host = "loopback"
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(host, port) + strings.TrimRight(u.EscapedPath(), "/")
}

// PowerDNSBase is raw, a PowerDNS HTTP API URL, as the base site adds
// /api/v1/servers/... to: PowerDNS's own documentation and its
// webserver's pages write the API as http://host:8081/api/v1, which
// reaches the same server as http://host:8081. A trailing slash goes
// too.
func PowerDNSBase(raw string) string {
	base := strings.TrimRight(raw, "/")
	for _, suffix := range []string{"/api/v1", "/api"} {
		if b, ok := strings.CutSuffix(base, suffix); ok {
			return strings.TrimRight(b, "/")
		}
	}
	return base
}

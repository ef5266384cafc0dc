package model

import "testing"

// TestServerURL: the spellings of one server's URL are one server; a
// different host, port, scheme or path is another.
func TestServerURL(t *testing.T) {
	same := [][]string{
		{"http://127.0.0.1:8081", "http://localhost:8081", "http://LocalHost:8081/", "http://[::1]:8081", "http://127.0.0.2:8081//"},
		{"https://api.cloudflare.com/client/v4", "https://API.cloudflare.com:443/client/v4/"},
		{"http://pdns.example.net", "http://pdns.example.net:80"},
	}
	for _, group := range same {
		for _, u := range group[1:] {
			if got, want := ServerURL(u), ServerURL(group[0]); got != want {
				t.Errorf("ServerURL(%q) = %q, want %q as for %q", u, got, want, group[0])
			}
		}
	}
	differ := []string{"http://127.0.0.1:8081", "http://127.0.0.1:8082", "https://127.0.0.1:8081", "http://10.0.0.1:8081", "http://127.0.0.1:8081/other", ""}
	seen := map[string]string{}
	for _, u := range differ {
		if first, ok := seen[ServerURL(u)]; ok {
			t.Errorf("ServerURL(%q) = ServerURL(%q) = %q, want two servers", u, first, ServerURL(u))
		}
		seen[ServerURL(u)] = u
	}
}

// TestPowerDNSBase: the API URL as PowerDNS writes it (with /api/v1 or
// /api, a trailing slash) is the base site adds the API path to.
func TestPowerDNSBase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8081", "http://127.0.0.1:8081"},
		{"http://127.0.0.1:8081/", "http://127.0.0.1:8081"},
		{"http://127.0.0.1:8081/api/v1", "http://127.0.0.1:8081"},
		{"http://127.0.0.1:8081/api/v1/", "http://127.0.0.1:8081"},
		{"http://127.0.0.1:8081/api", "http://127.0.0.1:8081"},
		{"https://dns.example.net/pdns/api/v1", "https://dns.example.net/pdns"},
		{"https://dns.example.net/pdns", "https://dns.example.net/pdns"},
	} {
		if got := PowerDNSBase(tc.in); got != tc.want {
			t.Errorf("PowerDNSBase(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package cloudflare

import (
	"encoding/json"
	"testing"

	cf "github.com/cloudflare/cloudflare-go"
)

func TestFromCloudflare(t *testing.T) {
	p10 := uint16(10)
	tests := []struct {
		name string
		in   cf.DNSRecord
		want string
	}{
		{"A", cf.DNSRecord{Type: "A", Name: "a.example.net", Content: "192.0.2.1"}, "192.0.2.1"},
		{"AAAA spelled long", cf.DNSRecord{Type: "AAAA", Name: "a.example.net", Content: "2001:DB8:0::1"}, "2001:db8::1"},
		{"CNAME without dot", cf.DNSRecord{Type: "CNAME", Name: "www.example.net", Content: "Example.NET"}, "example.net."},
		{"TXT quoted", cf.DNSRecord{Type: "TXT", Name: "example.net", Content: `"v=spf1 -all"`}, `"v=spf1 -all"`},
		{"TXT unquoted (older answers)", cf.DNSRecord{Type: "TXT", Name: "example.net", Content: "v=spf1 -all"}, `"v=spf1 -all"`},
		{"TXT split", cf.DNSRecord{Type: "TXT", Name: "example.net", Content: `"ab" "cd"`}, `"ab" "cd"`},
		{"MX", cf.DNSRecord{Type: "MX", Name: "example.net", Content: "mx.example.org", Priority: &p10}, "10 mx.example.org."},
		{"SRV with data", cf.DNSRecord{Type: "SRV", Name: "_sip._tcp.example.net", Content: "5 5060 sip.example.org",
			Data: map[string]any{"priority": 10.0, "weight": 5.0, "port": 5060.0, "target": "sip.example.org"}}, "10 5 5060 sip.example.org."},
		{"SRV content only", cf.DNSRecord{Type: "SRV", Name: "_sip._tcp.example.net", Content: "5 5060 sip.example.org", Priority: &p10}, "10 5 5060 sip.example.org."},
		{"CAA with data", cf.DNSRecord{Type: "CAA", Name: "example.net", Content: `0 issue "letsencrypt.org"`,
			Data: map[string]any{"flags": 0.0, "tag": "issue", "value": "letsencrypt.org"}}, `0 issue "letsencrypt.org"`},
		{"CAA content only", cf.DNSRecord{Type: "CAA", Name: "example.net", Content: `0 issue "letsencrypt.org"`}, `0 issue "letsencrypt.org"`},
		{"NS", cf.DNSRecord{Type: "NS", Name: "sub.example.net", Content: "ns1.example.org"}, "ns1.example.org."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok, err := fromCloudflare(tt.in)
			if err != nil || !ok {
				t.Fatalf("fromCloudflare: ok=%v err=%v", ok, err)
			}
			if rec.value != tt.want {
				t.Errorf("got %q, want %q", rec.value, tt.want)
			}
			if rec.name != fqdn(tt.in.Name) {
				t.Errorf("got name %q, want %q", rec.name, fqdn(tt.in.Name))
			}
		})
	}
	if _, ok, err := fromCloudflare(cf.DNSRecord{Type: "PTR", Name: "x.example.net", Content: "h.example.org"}); ok || err != nil {
		t.Errorf("PTR: got ok=%v err=%v, want an unmanaged type", ok, err)
	}
	if _, _, err := fromCloudflare(cf.DNSRecord{Type: "SRV", Name: "x.example.net", Content: "nonsense"}); err == nil {
		t.Error("malformed SRV: got no error")
	}
}

func TestToCloudflare(t *testing.T) {
	tests := []struct {
		typ, value string
		want       string // JSON of the body
	}{
		{"A", "192.0.2.1", `{"type":"A","name":"a.example.net","content":"192.0.2.1","ttl":300,"proxied":false,"comment":"m"}`},
		{"CNAME", "example.net.", `{"type":"CNAME","name":"a.example.net","content":"example.net","ttl":300,"proxied":false,"comment":"m"}`},
		{"TXT", `"v=spf1 -all"`, `{"type":"TXT","name":"a.example.net","content":"\"v=spf1 -all\"","ttl":300,"proxied":false,"comment":"m"}`},
		{"MX", "10 mx.example.org.", `{"type":"MX","name":"a.example.net","content":"mx.example.org","priority":10,"ttl":300,"proxied":false,"comment":"m"}`},
		{"SRV", "10 5 5060 sip.example.org.", `{"type":"SRV","name":"a.example.net","data":{"port":5060,"priority":10,"target":"sip.example.org","weight":5},"ttl":300,"proxied":false,"comment":"m"}`},
		{"CAA", `0 issue "letsencrypt.org"`, `{"type":"CAA","name":"a.example.net","data":{"flags":0,"tag":"issue","value":"letsencrypt.org"},"ttl":300,"proxied":false,"comment":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			b, err := toCloudflare("a.example.net.", tt.typ, tt.value, 300, "m")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(b)
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestOwnerIsTheWholeMarker(t *testing.T) {
	tests := []struct{ comment, want string }{
		{Marker("sjc"), "sjc"},
		{"managed by site tenant=sjc (do not edit)", "sjc (do not edit)"},
		{"hand-made record", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.comment, func(t *testing.T) {
			if got := owner(tt.comment); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

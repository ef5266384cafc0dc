package cloudflare

import (
	"encoding/json"
	"strings"
	"testing"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/compiler/model"
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
		{"PTR", cf.DNSRecord{Type: "PTR", Name: "1.2.example.net", Content: "Host.example.org"}, "host.example.org."},
		{"CNAME at the apex is an ALIAS", cf.DNSRecord{Type: "CNAME", Name: "example.net", Content: "lb.example.org"}, "lb.example.org."},
		{"SSHFP with data", cf.DNSRecord{Type: "SSHFP", Name: "ssh.example.net", Content: "4 2 AB",
			Data: map[string]any{"algorithm": 4.0, "type": 2.0, "fingerprint": strings.Repeat("AB", 32)}}, "4 2 " + strings.Repeat("ab", 32)},
		{"TLSA with data", cf.DNSRecord{Type: "TLSA", Name: "_443._tcp.example.net",
			Data: map[string]any{"usage": 3.0, "selector": 1.0, "matching_type": 1.0, "certificate": strings.Repeat("cd", 32)}}, "3 1 1 " + strings.Repeat("cd", 32)},
		{"DS with data", cf.DNSRecord{Type: "DS", Name: "child.example.net",
			Data: map[string]any{"key_tag": 2371.0, "algorithm": 13.0, "digest_type": 2.0, "digest": strings.Repeat("ef", 32)}}, "2371 13 2 " + strings.Repeat("ef", 32)},
		{"DS content only", cf.DNSRecord{Type: "DS", Name: "child.example.net", Content: "2371 13 2 " + strings.Repeat("EF", 32)}, "2371 13 2 " + strings.Repeat("ef", 32)},
		{"NAPTR with data", cf.DNSRecord{Type: "NAPTR", Name: "sip.example.net",
			Data: map[string]any{"order": 100.0, "preference": 10.0, "flags": "S", "service": "SIP+D2U", "regex": "", "replacement": "_sip._udp.example.org"}},
			`100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`},
		{"HTTPS with data, values quoted", cf.DNSRecord{Type: "HTTPS", Name: "example.net",
			Data: map[string]any{"priority": 1.0, "target": ".", "value": `alpn="h3,h2" port="443"`}}, "1 . alpn=h3,h2 port=443"},
		{"SVCB with data", cf.DNSRecord{Type: "SVCB", Name: "_dns.example.net",
			Data: map[string]any{"priority": 0.0, "target": "svc.example.org", "value": ""}}, "0 svc.example.org."},
		{"OPENPGPKEY", cf.DNSRecord{Type: "OPENPGPKEY", Name: "pgp.example.net", Content: "mQINBFq5ZXhhbXBsZQ=="}, "mQINBFq5ZXhhbXBsZQ=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, ok, err := fromCloudflare(tt.in, "example.net.")
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
	if _, ok, err := fromCloudflare(cf.DNSRecord{Type: "DNSKEY", Name: "x.example.net", Content: "257 3 13 AAAA"}, "example.net."); ok || err != nil {
		t.Errorf("DNSKEY: got ok=%v err=%v, want an unmanaged type", ok, err)
	}
	// A LOC listed with data (Cloudflare's LOCRecord), and with only
	// its content, read as the one canonical spelling.
	loc := cf.DNSRecord{Type: "LOC", Name: "x.example.net", Content: "51 30 12.748 N 0 7 39.611 W 0.00m", Data: map[string]any{
		"lat_degrees": 51.0, "lat_minutes": 30.0, "lat_seconds": 12.748, "lat_direction": "N",
		"long_degrees": 0.0, "long_minutes": 7.0, "long_seconds": 39.611, "long_direction": "W",
		"altitude": 0.0, "size": 1.0, "precision_horz": 10000.0, "precision_vert": 10.0}}
	const wantLOC = "51 30 12.748 N 0 7 39.611 W 0.00m 1.00m 10000.00m 10.00m"
	for _, r := range []cf.DNSRecord{loc, {Type: "LOC", Name: "x.example.net", Content: loc.Content}} {
		if rec, ok, err := fromCloudflare(r, "example.net."); !ok || err != nil || rec.value != wantLOC {
			t.Errorf("LOC %v: got %q, ok=%v err=%v, want %q", r.Data != nil, rec.value, ok, err, wantLOC)
		}
	}
	if _, _, err := fromCloudflare(cf.DNSRecord{Type: "SRV", Name: "x.example.net", Content: "nonsense"}, "example.net."); err == nil {
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
		{"PTR", "host.example.org.", `{"type":"PTR","name":"a.example.net","content":"host.example.org","ttl":300,"proxied":false,"comment":"m"}`},
		{"ALIAS", "lb.example.org.", `{"type":"CNAME","name":"a.example.net","content":"lb.example.org","ttl":300,"proxied":false,"comment":"m"}`},
		{"OPENPGPKEY", "mQINBFq5ZXhhbXBsZQ==", `{"type":"OPENPGPKEY","name":"a.example.net","content":"mQINBFq5ZXhhbXBsZQ==","ttl":300,"proxied":false,"comment":"m"}`},
		{"SSHFP", "4 2 " + strings.Repeat("ab", 32), `{"type":"SSHFP","name":"a.example.net","data":{"algorithm":4,"fingerprint":"` + strings.Repeat("ab", 32) + `","type":2},"ttl":300,"proxied":false,"comment":"m"}`},
		{"TLSA", "3 1 1 " + strings.Repeat("cd", 32), `{"type":"TLSA","name":"a.example.net","data":{"certificate":"` + strings.Repeat("cd", 32) + `","matching_type":1,"selector":1,"usage":3},"ttl":300,"proxied":false,"comment":"m"}`},
		{"DS", "2371 13 2 " + strings.Repeat("ef", 32), `{"type":"DS","name":"a.example.net","data":{"algorithm":13,"digest":"` + strings.Repeat("ef", 32) + `","digest_type":2,"key_tag":2371},"ttl":300,"proxied":false,"comment":"m"}`},
		{"NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.example.org.`, `{"type":"NAPTR","name":"a.example.net","data":{"flags":"S","order":100,"preference":10,"regex":"","replacement":"_sip._udp.example.org","service":"SIP+D2U"},"ttl":300,"proxied":false,"comment":"m"}`},
		{"HTTPS", "1 . alpn=h2,h3 port=443", `{"type":"HTTPS","name":"a.example.net","data":{"priority":1,"target":".","value":"alpn=h2,h3 port=443"},"ttl":300,"proxied":false,"comment":"m"}`},
		{"SVCB", "0 svc.example.org.", `{"type":"SVCB","name":"a.example.net","data":{"priority":0,"target":"svc.example.org","value":""},"ttl":300,"proxied":false,"comment":"m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			b, err := toCloudflare(&model.RRset{Name: "a.example.net.", Type: tt.typ, TTL: 300}, tt.value, "m")
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
		{"managed by site tenant=sjc (do not edit)", `"sjc (do not edit)"`},
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

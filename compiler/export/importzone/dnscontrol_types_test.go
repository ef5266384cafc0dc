package importzone

import (
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestDNSControlRecentTypes: each of LOC, SMIMEA, HINFO, RP, URI and
// CERT, in the fields `dnscontrol print-ir` writes for it (loc* and
// smimea*; rdata or zonfefilepartial for the types it has no fields
// for), imports as the same record written in a BIND file does.
func TestDNSControlRecentTypes(t *testing.T) {
	cert := strings.Repeat("ab", 32)
	tests := []struct {
		name, ir, bind string
	}{
		{"LOC from its fields", locIR(t, "52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m"),
			`here 300 IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m`},
		{"LOC south and west", locIR(t, "33 51 31.123 S 151 12 51.500 W 58.00m 2.00m 100.00m 5.00m"),
			`here 300 IN LOC 33 51 31.123 S 151 12 51.500 W 58.00m 2.00m 100.00m 5.00m`},
		{"LOC from its zone-file data", `{"type": "LOC", "name": "here", "ttl": 300, "zonfefilepartial": "52 22 23 N 4 53 32 E -2m 1m 10000m 10m"}`,
			`here 300 IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 1.00m 10000.00m 10.00m`},
		{"SMIMEA", `{"type": "SMIMEA", "name": "x._smimecert", "ttl": 300, "smimeausage": 3, "smimeaselector": 1, "smimeamatchingtype": 1, "target": "` + cert + `"}`,
			`x._smimecert 300 IN SMIMEA 3 1 1 ` + cert},
		{"HINFO from rdata", `{"type": "HINFO", "name": "box", "ttl": 300, "rdata": {"Cpu": "INTEL-386", "Os": "Linux"}}`,
			`box 300 IN HINFO "INTEL-386" "Linux"`},
		{"RP from rdata", `{"type": "RP", "name": "@", "ttl": 300, "rdata": {"Mbox": "admin.example.test.", "Txt": "info.example.test."}}`,
			`@ 300 IN RP admin.example.test. info.example.test.`},
		{"URI from rdata", `{"type": "URI", "name": "_http._tcp", "ttl": 300, "rdata": {"Priority": 10, "Weight": 1, "Target": "https://example.test/"}}`,
			`_http._tcp 300 IN URI 10 1 "https://example.test/"`},
		{"CERT from zone-file data", `{"type": "CERT", "name": "key", "ttl": 300, "zonfefilepartial": "1 12345 8 AAECAwQ="}`,
			`key 300 IN CERT 1 12345 8 AAECAwQ=`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ir := `{"domains": [{"name": "example.test", "records": [` + tt.ir + `]}]}`
			got, _, err := Import(Request{Format: "dnscontrol", File: "ir.json", Src: []byte(ir), Tenant: "lab", Provider: "pdns"})
			if err != nil {
				t.Fatalf("import dnscontrol: %v", err)
			}
			want, _, err := Import(Request{Format: "bind", File: "ir.json", Src: []byte(tt.bind + "\n"), Zone: "example.test", Tenant: "lab", Provider: "pdns"})
			if err != nil {
				t.Fatalf("import bind: %v", err)
			}
			if got := strings.Replace(string(got), "(dnscontrol)", "(bind)", 1); got != string(want) {
				t.Errorf("print-ir %s imports as\n%s\nwant, as BIND's %q:\n%s", tt.ir, got, tt.bind, want)
			}
		})
	}
	t.Run("HINFO without its data is refused", func(t *testing.T) {
		ir := `{"domains": [{"name": "example.test", "records": [{"type": "HINFO", "name": "box", "target": ""}]}]}`
		_, _, err := Import(Request{Format: "dnscontrol", File: "ir.json", Src: []byte(ir), Tenant: "lab", Provider: "pdns"})
		if err == nil || !strings.Contains(err.Error(), "ir.json: domain example.test record 1: box.example.test. HINFO: print-ir gives no HINFO data") {
			t.Errorf("err = %v, want the record refused, named", err)
		}
	})
}

// locIR is a print-ir LOC record at "here" holding loc, in the loc*
// fields DNSControl writes: RFC 1876's wire values, as miekg/dns
// parses them from loc.
func locIR(t *testing.T, loc string) string {
	t.Helper()
	rr, err := dns.NewRR("here. 300 IN LOC " + loc)
	if err != nil {
		t.Fatal(err)
	}
	l := rr.(*dns.LOC)
	return fmt.Sprintf(`{"type": "LOC", "name": "here", "ttl": 300, "locversion": %d, "locsize": %d, "lochorizpre": %d, "locvertpre": %d, "loclatitude": %d, "loclongitude": %d, "localtitude": %d}`,
		l.Version, l.Size, l.HorizPre, l.VertPre, l.Latitude, l.Longitude, l.Altitude)
}

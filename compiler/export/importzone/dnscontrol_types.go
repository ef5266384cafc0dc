package importzone

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/miekg/dns"

	"github.com/site-tools/site/compiler/rdata"
)

// irRecent is the part of a print-ir record that DNSControl gives the
// types it added late: LOC and SMIMEA in fields of their own (its
// RecordConfig's loc* and smimea* fields, named as print-ir writes
// them), and every type in its newer versions as "rdata" (its record's
// fields, as miekg/dns names them) and "zonfefilepartial" (the
// record's zone-file data, in presentation form; spelt so by
// DNSControl).
type irRecent struct {
	LocVersion         uint8           `json:"locversion"`
	LocSize            uint8           `json:"locsize"`
	LocHorizPre        uint8           `json:"lochorizpre"`
	LocVertPre         uint8           `json:"locvertpre"`
	LocLatitude        uint32          `json:"loclatitude"`
	LocLongitude       uint32          `json:"loclongitude"`
	LocAltitude        uint32          `json:"localtitude"`
	SmimeaUsage        int             `json:"smimeausage"`
	SmimeaSelector     int             `json:"smimeaselector"`
	SmimeaMatchingType int             `json:"smimeamatchingtype"`
	ZonefilePartial    string          `json:"zonfefilepartial"`
	RData              json.RawMessage `json:"rdata"`
}

// irRData is a record's "rdata" for the types DNSControl gives no
// fields of their own: miekg/dns's field names (JSON matches them
// without regard to case).
type irRData struct {
	Cpu, Os     string // HINFO
	Mbox, Txt   string // RP
	Priority    int    // URI
	Weight      int    // URI
	Target      string // URI
	Type        int    // CERT
	KeyTag      int    // CERT
	Algorithm   int    // CERT
	Certificate string // CERT
}

// irRecentValue writes the value of a record of a type DNSControl added
// late (LOC, SMIMEA, HINFO, RP, URI, CERT) in presentation form; ok is
// false for any other type.
func irRecentValue(typ string, r irRecord) (value string, ok bool, err error) {
	switch typ {
	case "LOC":
		value, err = irLOC(r)
	case "SMIMEA":
		value, err = rdata.SMIMEA(r.SmimeaUsage, r.SmimeaSelector, r.SmimeaMatchingType, r.Target)
	case "HINFO", "RP", "URI", "CERT":
		value, err = irFromRData(typ, r)
	default:
		return "", false, nil
	}
	return value, true, err
}

// irLOC is a LOC from its loc* fields (RFC 1876's wire values, as
// miekg/dns holds them), else from its zone-file data.
func irLOC(r irRecord) (string, error) {
	if r.LocLatitude != 0 || r.LocLongitude != 0 || r.LocAltitude != 0 {
		l := &dns.LOC{Hdr: dns.RR_Header{Name: ".", Rrtype: dns.TypeLOC, Class: dns.ClassINET}, Version: r.LocVersion,
			Size: r.LocSize, HorizPre: r.LocHorizPre, VertPre: r.LocVertPre,
			Latitude: r.LocLatitude, Longitude: r.LocLongitude, Altitude: r.LocAltitude}
		return rdata.LOC(strings.TrimPrefix(l.String(), l.Hdr.String()))
	}
	if s := strings.TrimSpace(cmpOr(r.ZonefilePartial, r.Target)); s != "" {
		return rdata.LOC(s)
	}
	return "", fmt.Errorf("print-ir gives no location (no loclatitude, loclongitude or localtitude): give the output of a DNSControl that writes LOC's fields")
}

// irFromRData is an HINFO, RP, URI or CERT from the record's zone-file
// data, else from its rdata; print-ir of an older DNSControl has
// neither, and the record is refused rather than imported empty.
func irFromRData(typ string, r irRecord) (string, error) {
	if s := strings.TrimSpace(r.ZonefilePartial); s != "" {
		rr, err := dns.NewRR(". 3600 IN " + typ + " " + s)
		if err != nil || rr == nil {
			return "", fmt.Errorf("zonfefilepartial %q is no %s data: %v", s, typ, err)
		}
		return irFromRData(typ, irRecord{irRecent: irRecent{RData: rdataJSON(rr)}})
	}
	if len(r.RData) == 0 || string(r.RData) == "null" {
		return "", fmt.Errorf("print-ir gives no %s data (neither rdata nor zonfefilepartial): give the output of a DNSControl that writes them, or add the record to the spec by hand", typ)
	}
	var d irRData
	if err := json.Unmarshal(r.RData, &d); err != nil {
		return "", fmt.Errorf("its rdata: %w", err)
	}
	switch typ {
	case "HINFO":
		return rdata.HINFO(d.Cpu, d.Os)
	case "RP":
		return rdata.RP(d.Mbox, d.Txt)
	case "URI":
		return rdata.URI(d.Priority, d.Weight, d.Target)
	}
	return rdata.CERT(d.Type, d.KeyTag, d.Algorithm, d.Certificate)
}

// rdataJSON is rr's fields as DNSControl's rdata writes them.
func rdataJSON(rr dns.RR) json.RawMessage {
	var d irRData
	switch v := rr.(type) {
	case *dns.HINFO:
		d.Cpu, d.Os = v.Cpu, v.Os
	case *dns.RP:
		d.Mbox, d.Txt = v.Mbox, v.Txt
	case *dns.URI:
		d.Priority, d.Weight, d.Target = int(v.Priority), int(v.Weight), v.Target
	case *dns.CERT:
		d.Type, d.KeyTag, d.Algorithm, d.Certificate = int(v.Type), int(v.KeyTag), int(v.Algorithm), v.Certificate
	}
	b, _ := json.Marshal(d) // plain fields: cannot fail
	return b
}

package compiler

import (
	"fmt"

	"github.com/site-tools/site/compiler/rdata"
)

// rawType is the values of one list-valued type at a name: n of them,
// value(i) giving the canonical form of the i-th.
type rawType struct {
	typ   string
	n     int
	value func(i int) (string, error)
}

// listTypes returns the list-valued types set at a name, sorted by type
// so that the RRsets come out in the order the planner works in.
// CNAME, DNAME and ALIAS hold one target each and are built apart.
func listTypes(raw *rawName) []rawType {
	var out []rawType
	strs := func(typ string, vs []string, f func(string) (string, error)) {
		if vs != nil {
			out = append(out, rawType{typ, len(vs), func(i int) (string, error) { return f(vs[i]) }})
		}
	}
	structs := func(typ string, vs []rdataFields) {
		if vs != nil {
			out = append(out, rawType{typ, len(vs), func(i int) (string, error) { return rdata.FromFields(typ, vs[i]) }})
		}
	}
	strs("A", raw.A, rdata.A)
	strs("AAAA", raw.AAAA, rdata.AAAA)
	if raw.CAA != nil {
		out = append(out, rawType{"CAA", len(raw.CAA), func(i int) (string, error) {
			c := raw.CAA[i]
			return rdata.CAA(int(c.Flags), c.Tag, c.Value)
		}})
	}
	strs("DHCID", raw.DHCID, func(s string) (string, error) { return rdata.Base64("DHCID", s) })
	structs("CERT", raw.CERT)
	structs("DS", raw.DS)
	structs("HINFO", raw.HINFO)
	structs("HTTPS", raw.HTTPS)
	strs("LOC", raw.LOC, rdata.LOC)
	if raw.MX != nil {
		out = append(out, rawType{"MX", len(raw.MX), func(i int) (string, error) { return rdata.MX(int(raw.MX[i].Priority), raw.MX[i].Host) }})
	}
	structs("NAPTR", raw.NAPTR)
	strs("NS", raw.NS, rdata.Host)
	strs("OPENPGPKEY", raw.OPENPGPKEY, func(s string) (string, error) { return rdata.Base64("OPENPGPKEY", s) })
	strs("PTR", raw.PTR, func(s string) (string, error) {
		h, err := rdata.Host(s)
		if err != nil {
			return "", fmt.Errorf("PTR %w", err)
		}
		return h, nil
	})
	structs("RP", raw.RP)
	structs("SMIMEA", raw.SMIMEA)
	if raw.SRV != nil {
		out = append(out, rawType{"SRV", len(raw.SRV), func(i int) (string, error) {
			s := raw.SRV[i]
			return rdata.SRV(int(s.Priority), int(s.Weight), int(s.Port), s.Target)
		}})
	}
	structs("SSHFP", raw.SSHFP)
	structs("SVCB", raw.SVCB)
	structs("TLSA", raw.TLSA)
	if raw.TXT != nil {
		out = append(out, rawType{"TXT", len(raw.TXT), func(i int) (string, error) {
			if t := raw.TXT[i]; t.Parts != nil {
				return rdata.TXTStrings(t.Parts)
			}
			return rdata.TXT(raw.TXT[i].Text), nil
		}})
	}
	structs("URI", raw.URI)
	return out
}

package compiler

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// The raw types are a tenant's spec as CUE evaluated it, defaults applied and
// nothing canonicalised yet: plain Go values decoded inside one worker,
// so that everything after evaluation runs without CUE.

type rawTenant struct {
	Domain   string                 `json:"domain"`
	DNS      *rawDNS                `json:"dns"`
	Networks map[string]*rawNetwork `json:"networks"`
	VMs      map[string]*rawVM      `json:"vms"`
}

// rawDNS is a tenant's dns: its zones, and the single names site.cue
// grants it inside other tenants' zones (handover.go).
type rawDNS struct {
	Zones map[string]*rawZone  `json:"zones"`
	Names map[string]*rawNamed `json:"names"`
}

// rawNamed is a single name (dns: names): its records, and the
// provider no zone of the tenant's names for it.
type rawNamed struct {
	Provider string `json:"provider"`
	rawName
}

type rawZone struct {
	Provider providerNames       `json:"provider"` // names from site.cue
	TTL      int64               `json:"ttl"`
	Records  map[string]*rawName `json:"records"`
	Ignore   []struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"ignore"`
	SOA *struct {
		Primary *string `json:"primary"`
		Mbox    *string `json:"mbox"`
		Refresh *int64  `json:"refresh"`
		Retry   *int64  `json:"retry"`
		Expire  *int64  `json:"expire"`
		Minimum *int64  `json:"minimum"`
	} `json:"soa"`
	DNSSEC bool `json:"dnssec"`
	// order is the keys of Records in the order the user wrote them
	// (inFileOrder's), when a cache entry stored them so: working it
	// out again, a lookup and a sort per name, was a quarter of
	// building a cached zone of 10,000 names. Nil when the zone was
	// evaluated, and the builder works it out.
	order []string
}

// rawName is every record at one owner name, keyed by type. Its fields
// are omitzero: a name sets one or two of its twenty types, and the
// cache (cache.go) stored the other eighteen as null, ten times the
// spec's size to read back on every cached run. omitzero keeps an
// empty list apart from an absent one (A: [] is not A unset).
type rawName struct {
	TTL *int64 `json:"ttl,omitzero"`
	// TTLs are the per-type TTLs (ttls: {MX: 3600}), by type as written.
	TTLs    map[string]int64 `json:"ttls,omitzero"`
	Proxied *bool            `json:"proxied,omitzero"`
	A       []string         `json:"A,omitzero"`
	AAAA    []string         `json:"AAAA,omitzero"`
	CNAME   *string          `json:"CNAME,omitzero"`
	TXT     []rawTXT         `json:"TXT,omitzero"`
	MX      []rawMX          `json:"MX,omitzero"`
	SRV     []rawSRV         `json:"SRV,omitzero"`
	CAA     []rawCAA         `json:"CAA,omitzero"`
	NS      []string         `json:"NS,omitzero"`
	PTR     []string         `json:"PTR,omitzero"`
	// Struct types go through rdata.FromFields, which knows their fields.
	SSHFP      []rdataFields `json:"SSHFP,omitzero"`
	TLSA       []rdataFields `json:"TLSA,omitzero"`
	HTTPS      []rdataFields `json:"HTTPS,omitzero"`
	SVCB       []rdataFields `json:"SVCB,omitzero"`
	NAPTR      []rdataFields `json:"NAPTR,omitzero"`
	DS         []rdataFields `json:"DS,omitzero"`
	DNAME      *string       `json:"DNAME,omitzero"`
	OPENPGPKEY []string      `json:"OPENPGPKEY,omitzero"`
	DHCID      []string      `json:"DHCID,omitzero"`
	ALIAS      *string       `json:"ALIAS,omitzero"`
	LOC        []string      `json:"LOC,omitzero"`
	URI        []rdataFields `json:"URI,omitzero"`
	CERT       []rdataFields `json:"CERT,omitzero"`
	SMIMEA     []rdataFields `json:"SMIMEA,omitzero"`
	HINFO      []rdataFields `json:"HINFO,omitzero"`
	RP         []rdataFields `json:"RP,omitzero"`
}

type rawMX struct {
	Priority int64  `json:"priority,omitzero"`
	Host     string `json:"host,omitzero"`
}

type rawSRV struct {
	Priority int64  `json:"priority,omitzero"`
	Weight   int64  `json:"weight,omitzero"`
	Port     int64  `json:"port,omitzero"`
	Target   string `json:"target,omitzero"`
}

type rawCAA struct {
	Flags int64  `json:"flags,omitzero"`
	Tag   string `json:"tag,omitzero"`
	Value string `json:"value,omitzero"`
}

type rawNetwork struct {
	Host      string `json:"host"`
	Mode      string `json:"mode"` // "" until fillDefaults
	CIDR      string `json:"cidr"`
	Bridge    string `json:"bridge"`
	Autostart bool   `json:"autostart"`
}

type rawVM struct {
	Host      string `json:"host"`
	Autostart bool   `json:"autostart"`
	Running   *bool  `json:"running"` // nil until fillDefaults
	VCPUs     int    `json:"vcpus"`
	Memory    string `json:"memory"`
	Disks     []struct {
		Pool  string `json:"pool"`
		Name  string `json:"name"`
		Size  string `json:"size"`
		Base  string `json:"base"`
		Clone bool   `json:"clone"`
	} `json:"disks"`
	NICs []struct {
		Network string `json:"network"`
		Address string `json:"address"`
		MAC     string `json:"mac"`
	} `json:"nics"`
	CloudInit *struct {
		UserData      string `json:"user_data"`
		MetaData      string `json:"meta_data"`
		NetworkConfig string `json:"network_config"`
	} `json:"cloudinit"`
	Publish *struct {
		Zone    string   `json:"zone"`
		Names   []string `json:"names"`
		Address string   `json:"address"`
		PTR     bool     `json:"ptr"`
	} `json:"publish"`
}

// rawTXT is one TXT record: a string, or a list of strings that are its
// character-strings one by one. Both CUE's Decode and the plain-data path
// reach it through encoding/json, so one UnmarshalJSON serves both.
type rawTXT struct {
	Text  string
	Parts []string // non-nil when the spec gave a list
}

func (t *rawTXT) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.Text); err == nil {
		return nil
	}
	t.Parts = []string{}
	return json.Unmarshal(b, &t.Parts)
}

func (t rawTXT) MarshalJSON() ([]byte, error) {
	if t.Parts != nil {
		return json.Marshal(t.Parts)
	}
	return json.Marshal(t.Text)
}

// rdataFields is one record of a struct type (SSHFP, TLSA, ...), field
// by field. Its numbers keep their Go type through JSON, as CUE's
// Decode gives them (an integer is an int64, or a *big.Int past int64,
// anything else a float64), so that a model read back from the cache
// (cache.go) says exactly what a fresh evaluation says, down to the %v
// of a number in a diagnostic.
type rdataFields map[string]any

func (f *rdataFields) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return err
	}
	for k, v := range m {
		m[k] = typedNumbers(v)
	}
	*f = m
	return nil
}

func (f rdataFields) MarshalJSON() ([]byte, error) {
	if f == nil {
		return []byte("null"), nil
	}
	m := make(map[string]any, len(f))
	for k, v := range f {
		m[k] = floatsMarked(v)
	}
	return json.Marshal(m)
}

// typedNumbers replaces every json.Number in v: one written without a
// fraction or exponent is an integer.
func typedNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			f, _ := x.Float64()
			return f
		}
		if n, err := x.Int64(); err == nil {
			return n
		}
		if n, ok := new(big.Int).SetString(s, 10); ok {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = typedNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = typedNumbers(x[k])
		}
	}
	return v
}

// floatsMarked returns v with every float64 written so that
// typedNumbers reads it back as a float64 (1.0, not 1). It copies
// rather than changes v, which the model in hand still uses.
func floatsMarked(v any) any {
	switch x := v.(type) {
	case float64:
		return markedFloat(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = floatsMarked(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k := range x {
			out[k] = floatsMarked(x[k])
		}
		return out
	}
	return v
}

type markedFloat float64

func (f markedFloat) MarshalJSON() ([]byte, error) {
	b := strconv.AppendFloat(nil, float64(f), 'g', -1, 64)
	if !bytes.ContainsAny(b, ".eE") {
		b = append(b, ".0"...)
	}
	return b, nil
}

// providerNames is a zone's provider: one name ("pdns") or a list of
// several (["pdns", "pdns2"]), read as a list either way. It is written
// back as it was read (a single name as a string), so that a cached or
// hashed spec of one provider reads as before lists existed.
type providerNames []string

func (p *providerNames) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		return json.Unmarshal(b, (*[]string)(p))
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*p = providerNames{one}
	return nil
}

func (p providerNames) MarshalJSON() ([]byte, error) {
	if len(p) == 1 {
		return json.Marshal(p[0])
	}
	return json.Marshal([]string(p))
}

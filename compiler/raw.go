package compiler

import (
	"encoding/json"
)

// The raw types are a tenant's spec as CUE evaluated it, defaults applied and
// nothing canonicalised yet: plain Go values decoded inside one worker,
// so that everything after evaluation runs without CUE.

type rawTenant struct {
	Domain string `json:"domain"`
	DNS    *struct {
		Zones map[string]*rawZone `json:"zones"`
	} `json:"dns"`
	Networks map[string]*rawNetwork `json:"networks"`
	VMs      map[string]*rawVM      `json:"vms"`
}

type rawZone struct {
	Provider string              `json:"provider"` // a name from site.cue
	TTL      int64               `json:"ttl"`
	Records  map[string]*rawName `json:"records"`
	Ignore   []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"ignore"`
	SOA *struct {
		Mbox    *string `json:"mbox"`
		Refresh *int64  `json:"refresh"`
		Retry   *int64  `json:"retry"`
		Expire  *int64  `json:"expire"`
		Minimum *int64  `json:"minimum"`
	} `json:"soa"`
	DNSSEC bool `json:"dnssec"`
}

// rawName is every record at one owner name, keyed by type.
type rawName struct {
	TTL     *int64   `json:"ttl"`
	Proxied *bool    `json:"proxied"`
	A       []string `json:"A"`
	AAAA    []string `json:"AAAA"`
	CNAME   *string  `json:"CNAME"`
	TXT     []rawTXT `json:"TXT"`
	MX      []struct {
		Priority int64  `json:"priority"`
		Host     string `json:"host"`
	} `json:"MX"`
	SRV []struct {
		Priority int64  `json:"priority"`
		Weight   int64  `json:"weight"`
		Port     int64  `json:"port"`
		Target   string `json:"target"`
	} `json:"SRV"`
	CAA []struct {
		Flags int64  `json:"flags"`
		Tag   string `json:"tag"`
		Value string `json:"value"`
	} `json:"CAA"`
	NS  []string `json:"NS"`
	PTR []string `json:"PTR"`
	// Struct types go through rdata.FromFields, which knows their fields.
	SSHFP      []map[string]any `json:"SSHFP"`
	TLSA       []map[string]any `json:"TLSA"`
	HTTPS      []map[string]any `json:"HTTPS"`
	SVCB       []map[string]any `json:"SVCB"`
	NAPTR      []map[string]any `json:"NAPTR"`
	DS         []map[string]any `json:"DS"`
	DNAME      *string          `json:"DNAME"`
	OPENPGPKEY []string         `json:"OPENPGPKEY"`
	DHCID      []string         `json:"DHCID"`
	ALIAS      *string          `json:"ALIAS"`
}

type rawNetwork struct {
	Host      string `json:"host"`
	CIDR      string `json:"cidr"`
	Autostart bool   `json:"autostart"`
}

type rawVM struct {
	Host      string `json:"host"`
	Autostart bool   `json:"autostart"`
	Running   *bool  `json:"running"` // nil until fillDefaults
	VCPUs     int    `json:"vcpus"`
	Memory    string `json:"memory"`
	Disks     []struct {
		Pool string `json:"pool"`
		Name string `json:"name"`
		Size string `json:"size"`
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

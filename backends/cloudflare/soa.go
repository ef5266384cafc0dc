package cloudflare

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/rdata"
)

// soaSettings is the "soa" of a zone's DNS settings (GET and PATCH
// /zones/{zone_id}/dns_settings): Cloudflare keeps the SOA there, not
// among the records, and has no serial to show.
type soaSettings struct {
	MName   string `json:"mname"`
	RName   string `json:"rname"`
	Refresh uint32 `json:"refresh"`
	Retry   uint32 `json:"retry"`
	Expire  uint32 `json:"expire"`
	MinTTL  uint32 `json:"min_ttl"`
	TTL     uint32 `json:"ttl"`
}

// readSOA reads the zone's SOA settings.
func readSOA(ctx context.Context, api *cf.API, zoneID, zone string) (*soaSettings, error) {
	res, err := api.Raw(ctx, http.MethodGet, "/zones/"+zoneID+"/dns_settings", nil, nil)
	if err != nil {
		return nil, describe(fmt.Sprintf("reading the DNS settings (SOA) of Cloudflare zone %s", zone), needDNSEdit(zone), err)
	}
	var out struct {
		SOA *soaSettings `json:"soa"`
	}
	if err := json.Unmarshal(res.Result, &out); err != nil || out.SOA == nil {
		return nil, fmt.Errorf("the DNS settings of Cloudflare zone %s hold no readable soa (%v): check the token may read zone settings", zone, err)
	}
	return out.SOA, nil
}

// rrset is the settings as the planner's SOA RRset, serial 0.
func (s *soaSettings) rrset(zone string) *dnsplan.RRset {
	v := rdata.SOA{MName: fqdn(s.MName), RName: fqdn(s.RName), Refresh: s.Refresh, Retry: s.Retry, Expire: s.Expire, Minimum: s.MinTTL}
	return &dnsplan.RRset{NameType: dnsplan.NameType{Name: zone, Type: "SOA"}, TTL: s.TTL, Values: []string{v.String()}}
}

// soaPatch is the PATCH body that writes the SOA value the planner chose.
func soaPatch(value string) (map[string]any, error) {
	s, err := rdata.ParseSOA(value)
	if err != nil {
		return nil, err
	}
	return map[string]any{"soa": map[string]any{"rname": hostname(s.RName), "refresh": s.Refresh,
		"retry": s.Retry, "expire": s.Expire, "min_ttl": s.Minimum}}, nil
}

// writeSOA sends the SOA patch, if any.
func writeSOA(ctx context.Context, det *detail, zone string, patch map[string]any) ([]string, error) {
	if patch == nil {
		return nil, nil
	}
	sending, delivered := withDelivery(ctx)
	res, err := det.api.Raw(sending, http.MethodPatch, "/zones/"+det.zoneID+"/dns_settings", patch, nil)
	if err == nil {
		err = delivered.unsuccessful(res)
	}
	if err != nil {
		doing := fmt.Sprintf("writing the SOA settings of Cloudflare zone %s", zone)
		if _, reached := delivered.fate(); reached {
			return nil, mayHaveApplied(doing, err)
		}
		return nil, describe(doing, needDNSEdit(zone), err)
	}
	return []string{"updated the zone's SOA settings"}, nil
}

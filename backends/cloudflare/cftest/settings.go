package cftest

import (
	"fmt"
	"net/http"
)

// Endpoint names of the zone's DNS settings, used by Count.
const (
	EpSettingsGet   = "dns_settings"
	EpSettingsPatch = "dns_settings_patch"
)

// SOA is the SOA part of a zone's DNS settings (GET and PATCH
// /zones/{z}/dns_settings, field "soa"), named as the API names it.
type SOA struct {
	MName   string `json:"mname"`
	RName   string `json:"rname"`
	Refresh int    `json:"refresh"`
	Retry   int    `json:"retry"`
	Expire  int    `json:"expire"`
	MinTTL  int    `json:"min_ttl"`
	TTL     int    `json:"ttl"`
}

// defaultSOA is a new zone's SOA: the values Cloudflare documents as its
// defaults ("SOA record" on developers.cloudflare.com/dns); the name
// servers of a real zone vary, the fake names one.
func defaultSOA() SOA {
	return SOA{MName: "ns1.cftest.invalid", RName: "dns.cloudflare.com", Refresh: 10000, Retry: 2400, Expire: 604800, MinTTL: 1800, TTL: 3600}
}

// ZoneSOA returns the SOA settings of a zone.
func (s *Server) ZoneSOA(zoneID string) SOA {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.zones[zoneID].soa
}

// settings answers GET and PATCH of a zone's DNS settings; only "soa" is
// served. A PATCH changes the fields it names, within the documented
// ranges (refresh and retry 600-86400, expire 86400-2419200, min_ttl
// 60-86400, ttl 300-86400); which code a value out of range gets is not
// documented, and the fake uses 1004.
func (s *Server) settings(w http.ResponseWriter, r *http.Request, z *zone, patch bool) {
	if patch {
		var in struct {
			SOA *struct {
				MName   *string `json:"mname"`
				RName   *string `json:"rname"`
				Refresh *int    `json:"refresh"`
				Retry   *int    `json:"retry"`
				Expire  *int    `json:"expire"`
				MinTTL  *int    `json:"min_ttl"`
				TTL     *int    `json:"ttl"`
			} `json:"soa"`
		}
		if err := decode(r, &in); err != nil {
			writeError(w, err)
			return
		}
		if in.SOA != nil {
			next := z.soa
			set := func(dst *int, v *int, name string, lo, hi int) error {
				if v == nil {
					return nil
				}
				if *v < lo || *v > hi {
					return fmt.Errorf("soa %s %d: use %d to %d", name, *v, lo, hi)
				}
				*dst = *v
				return nil
			}
			for _, err := range []error{
				set(&next.Refresh, in.SOA.Refresh, "refresh", 600, 86400),
				set(&next.Retry, in.SOA.Retry, "retry", 600, 86400),
				set(&next.Expire, in.SOA.Expire, "expire", 86400, 2419200),
				set(&next.MinTTL, in.SOA.MinTTL, "min_ttl", 60, 86400),
				set(&next.TTL, in.SOA.TTL, "ttl", 300, 86400),
			} {
				if err != nil {
					writeError(w, validation(err.Error()))
					return
				}
			}
			if in.SOA.MName != nil {
				next.MName = *in.SOA.MName
			}
			if in.SOA.RName != nil {
				next.RName = *in.SOA.RName
			}
			z.soa = next
		}
	}
	writeJSON(w, http.StatusOK, envelope(map[string]any{"soa": z.soa}))
}

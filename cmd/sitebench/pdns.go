package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// The raw floor: what one request of the PowerDNS API costs for the
// same zone, with net/http and nothing else, straight to the server.

// floorGET times one raw GET of zone.
func floorGET(srv *pdnstest.Server, zone string) (sample, error) {
	start := time.Now()
	status, _, err := srv.Do(context.Background(), "GET", "/zones/"+zone, nil)
	if err == nil && status != 200 {
		err = fmt.Errorf("GET %s: status %d", zone, status)
	}
	return sample{wall: time.Since(start)}, err
}

// floorPATCH times one raw PATCH of body into zone.
func floorPATCH(srv *pdnstest.Server, zone string, body []byte) (sample, error) {
	start := time.Now()
	status, out, err := srv.Do(context.Background(), "PATCH", "/zones/"+zone, body)
	if err == nil && status != 204 {
		err = fmt.Errorf("PATCH %s (%d bytes): status %d: %s", zone, len(body), status, out)
	}
	return sample{wall: time.Since(start)}, err
}

// replaceBody is the PATCH that writes every rrset zone holds now (but
// its SOA) into an empty copy of it: the same records, owner markers and
// all, that site's apply wrote there.
func replaceBody(srv *pdnstest.Server, zone string) ([]byte, error) {
	status, out, err := srv.Do(context.Background(), "GET", "/zones/"+zone, nil)
	if err != nil || status != 200 {
		return nil, fmt.Errorf("GET %s: %d %v", zone, status, err)
	}
	// Only what a write carries: PowerDNS's body limit (2 MiB by
	// default) holds 10,000 rrsets with markers, not what a read adds.
	type record struct {
		Content  string `json:"content"`
		Disabled bool   `json:"disabled"`
	}
	type comment struct {
		Account string `json:"account"`
		Content string `json:"content"`
	}
	type rrset struct {
		Name       string    `json:"name"`
		Type       string    `json:"type"`
		TTL        int       `json:"ttl"`
		ChangeType string    `json:"changetype"`
		Records    []record  `json:"records"`
		Comments   []comment `json:"comments"`
	}
	var z struct {
		RRsets []rrset `json:"rrsets"`
	}
	if err := json.Unmarshal(out, &z); err != nil {
		return nil, err
	}
	var sets []rrset
	for _, rs := range z.RRsets {
		if rs.Type == "SOA" {
			continue
		}
		rs.ChangeType = "REPLACE"
		sets = append(sets, rs)
	}
	return json.Marshal(map[string]any{"rrsets": sets})
}

// emptyZone makes zone exist with nothing but its SOA.
func emptyZone(srv *pdnstest.Server, zone string) error {
	if err := dropZone(srv, zone); err != nil {
		return err
	}
	body := []byte(`{"name":"` + zone + `","kind":"Native","soa_edit_api":"DEFAULT","nameservers":[]}`)
	status, out, err := srv.Do(context.Background(), "POST", "/zones", body)
	if err == nil && status != 201 {
		err = fmt.Errorf("create %s: status %d: %s", zone, status, out)
	}
	return err
}

// dropZone deletes zone when it exists: apply from empty starts there.
func dropZone(srv *pdnstest.Server, zone string) error {
	status, out, err := srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil)
	if err == nil && status != 204 && status != 404 {
		err = fmt.Errorf("delete %s: status %d: %s", zone, status, out)
	}
	return err
}

func dropZones(srv *pdnstest.Server, zones []string) error {
	for _, z := range zones {
		if err := dropZone(srv, z); err != nil {
			return err
		}
	}
	return nil
}

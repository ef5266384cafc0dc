package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/miekg/dns"

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

// writeRRset is an rrset as a write carries it: PowerDNS's body limit
// (2 MiB by default) holds 10,000 rrsets with markers, not what a read
// adds.
type writeRRset struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	TTL        int    `json:"ttl"`
	ChangeType string `json:"changetype,omitempty"`
	Records    []struct {
		Content  string `json:"content"`
		Disabled bool   `json:"disabled"`
	} `json:"records"`
	Comments []struct {
		Account string `json:"account"`
		Content string `json:"content"`
	} `json:"comments"`
}

// rrsetsOf reads every rrset zone holds now but its SOA: the same
// records, owner markers and all, that site's apply wrote there.
func rrsetsOf(srv *pdnstest.Server, zone string) ([]writeRRset, error) {
	status, out, err := srv.Do(context.Background(), "GET", "/zones/"+zone, nil)
	if err != nil || status != 200 {
		return nil, fmt.Errorf("GET %s: %d %v", zone, status, err)
	}
	var z struct {
		RRsets []writeRRset `json:"rrsets"`
	}
	if err := json.Unmarshal(out, &z); err != nil {
		return nil, err
	}
	var sets []writeRRset
	for _, rs := range z.RRsets {
		if rs.Type != "SOA" {
			sets = append(sets, rs)
		}
	}
	return sets, nil
}

// replaceBody is the PATCH that writes what zone holds now into an
// empty copy of it.
func replaceBody(srv *pdnstest.Server, zone string) ([]byte, error) {
	sets, err := rrsetsOf(srv, zone)
	if err != nil {
		return nil, err
	}
	for i := range sets {
		sets[i].ChangeType = "REPLACE"
	}
	return json.Marshal(map[string]any{"rrsets": sets})
}

// createBody is the POST that creates zone holding what it holds now,
// as site's apply creates a zone that does not exist.
func createBody(srv *pdnstest.Server, zone string) ([]byte, error) {
	sets, err := rrsetsOf(srv, zone)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"name": zone, "kind": "Native", "soa_edit_api": "DEFAULT", "nameservers": []string{}, "rrsets": sets})
}

// floorMany times do on each of zones, parallel at a time (site's
// default parallelism).
func floorMany(zones []string, parallel int, do func(zone string) error) (sample, error) {
	next := make(chan string)
	errs := make(chan error, parallel)
	start := time.Now()
	for range parallel {
		go func() {
			var err error
			for z := range next {
				if err == nil {
					err = do(z)
				}
			}
			errs <- err
		}()
	}
	for _, z := range zones {
		next <- z
	}
	close(next)
	var err error
	for range parallel {
		if e := <-errs; e != nil {
			err = e
		}
	}
	return sample{wall: time.Since(start)}, err
}

// floorCreate is one raw POST /zones of body, creating zone.
func floorCreate(srv *pdnstest.Server, zone string, body []byte) error {
	status, out, err := srv.Do(context.Background(), "POST", "/zones", body)
	if err == nil && status != 201 {
		err = fmt.Errorf("POST %s: status %d: %s", zone, status, out)
	}
	return err
}

// floorAXFR transfers zone from the server's DNS listener, as site's
// apply verifies what a zone serves once it has written it (incident
// 2: a record can read as written while the name does not resolve).
func floorAXFR(srv *pdnstest.Server, zone string) error {
	m := new(dns.Msg)
	m.SetAxfr(zone)
	answers, err := new(dns.Transfer).In(m, srv.DNSAddr)
	if err != nil {
		return fmt.Errorf("AXFR %s: %w", zone, err)
	}
	for a := range answers {
		if a.Error != nil {
			err = fmt.Errorf("AXFR %s: %w", zone, a.Error)
		}
	}
	return err
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

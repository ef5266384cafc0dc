package cloudflare

// DNSSEC on Cloudflare: a zone with dnssec: true has its DNSSEC details
// read (one GET /zones/{id}/dnssec per plan, for such zones only) and
// its plan notes what they say: the DS the parent must publish while
// Cloudflare's DNSSEC is active or pending, else that it is not on; and
// it tells that DS to its parent's step (backends.Output), which
// publishes it.
// site does not turn Cloudflare's DNSSEC on or off: that stays in the
// dashboard, where Cloudflare also shows the registrar step.
//
// A Cloudflare zone that is the parent of signed zones of its tenant
// writes their DS as DS records (data: key_tag, algorithm, digest_type,
// digest), owned like any record site writes. It reads each child's DS
// from what the child's step, which it depends on, told it (its
// backends.Inputs): Cloudflare's DNSSEC details for a Cloudflare
// child, a PowerDNS child's keys. The planning is dnsplan's, shared with
// the PowerDNS parent: a child signed in this apply is a pending DS,
// which Apply adds once it is known (pendingds.go); a child with no DS (or not read in this
// run) gets none written, and any DS there stays, with a note.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	cf "github.com/cloudflare/cloudflare-go"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// dnssecDetails are the fields of "DNSSEC Details" (GET
// /zones/{zone_id}/dnssec) that site reads.
type dnssecDetails struct {
	Status     string `json:"status"` // active, pending, disabled, pending-disabled, error
	Algorithm  string `json:"algorithm"`
	DigestType string `json:"digest_type"`
	Digest     string `json:"digest"`
	KeyTag     int    `json:"key_tag"`
}

// readDNSSEC reads the zone's DNSSEC details.
func readDNSSEC(ctx context.Context, api *cf.API, zoneID, zone string) (*dnssecDetails, error) {
	res, err := api.Raw(ctx, http.MethodGet, "/zones/"+zoneID+"/dnssec", nil, nil)
	if err != nil {
		return nil, describe(fmt.Sprintf("reading the DNSSEC status of Cloudflare zone %s", zone), needDNSEdit(zone), err)
	}
	var out dnssecDetails
	if err := json.Unmarshal(res.Result, &out); err != nil || out.Status == "" {
		return nil, fmt.Errorf("the DNSSEC details of Cloudflare zone %s have no readable status (%v): check the token may read the zone's DNS", zone, err)
	}
	// Server text, quoted in notes: escaped on one line (a real status
	// or DS field holds nothing to escape).
	for _, f := range []*string{&out.Status, &out.Algorithm, &out.DigestType, &out.Digest} {
		*f = visible.Short(*f)
	}
	return &out, nil
}

// publishedDS is the DS the parent must publish: Cloudflare's one key
// while its DNSSEC is active, or pending (waiting for that DS to show in
// the parent); none in any other state, or when a field is missing.
func publishedDS(d *dnssecDetails) []string {
	if (d.Status != "active" && d.Status != "pending") || d.KeyTag == 0 || d.Algorithm == "" || d.DigestType == "" || d.Digest == "" {
		return nil
	}
	return []string{strconv.Itoa(d.KeyTag) + " " + d.Algorithm + " " + d.DigestType + " " + strings.ToLower(d.Digest)}
}

// dnssecNotes say what Cloudflare's DNSSEC status means for zone.
func dnssecNotes(zone string, dsParent string, d *dnssecDetails) []string {
	switch d.Status {
	case "active", "pending":
		if d.KeyTag == 0 || d.Algorithm == "" || d.DigestType == "" || d.Digest == "" {
			return []string{fmt.Sprintf("Cloudflare's DNSSEC for zone %s is %s but shows no DS: see the zone's DNSSEC page in the dashboard", zone, d.Status)}
		}
		var out []string
		if dsParent == "" {
			// Else its parent's plan shows the DS it writes, when it
			// changes.
			out = append(out, backends.DSNote(zone, publishedDS(d)[0]))
		}
		if d.Status == "pending" {
			out = append(out, fmt.Sprintf("Cloudflare's DNSSEC for zone %s is pending: it turns active once the parent publishes that DS", zone))
		}
		return out
	case "disabled":
		return []string{fmt.Sprintf("zone %s says dnssec: true, but Cloudflare's DNSSEC is disabled: enable it in Cloudflare's dashboard (site does not); its DS then shows here", zone)}
	}
	return []string{fmt.Sprintf("Cloudflare's DNSSEC for zone %s is %s: see the zone's DNSSEC page in the dashboard", zone, d.Status)}
}

// withChildDS returns step with the DS of its signed children among its
// wanted RRsets, the children signed in this apply, and the notes of
// those with none: every child's DS is what its own step told this one.
func withChildDS(step *graph.Step, in backends.Inputs) (*graph.Step, []*model.Zone, []string, error) {
	return dnsplan.WithChildDS(step, func(child *model.Zone) (dnsplan.ChildDS, error) {
		return dnsplan.SignerChildDS(in, child), nil
	})
}

package powerdns

// DNSSEC: a zone with dnssec: true must have an active key; PowerDNS then
// signs every answer itself, so site never writes DNSKEY, RRSIG or NSEC*
// (and the planner leaves them alone, see dnsplan.SignerType). site never
// deactivates or deletes a key: unsigning while the parent publishes the
// DS would make the zone fail validation everywhere.
//
// A parent zone of the same tenant publishes its signed children's DS.
// Its step depends on theirs (compiler/graph), and its plan reads the
// children's keys (GET .../cryptokeys, one per child). When a child has
// no key yet, the one it gets in this same apply cannot be known at plan
// time: the parent plans a pending DS change, leaves any live DS there
// alone, and its Apply adds that DS, now with the key (pendingds.go).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// newKey is the key site adds to an unsigned zone: one combined signing
// key (CSK) with ECDSA P-256 (algorithm 13), what RFC 8624 recommends.
var newKey = map[string]any{"keytype": "csk", "active": true, "algorithm": "ecdsa256"}

// dsDigestType is the DS digest site publishes: SHA-256 (RFC 8624: SHA-1
// must not be used; SHA-384 adds nothing for a P-256 key).
const dsDigestType = "2"

// cryptokeys lists zone's keys; a 404 (no such zone) is no keys.
func (d *Driver) cryptokeys(ctx context.Context, c *client, zone string) ([]pdns.Cryptokey, error) {
	var keys []pdns.Cryptokey
	err := d.retry(ctx, func(ctx context.Context) error {
		var err error
		keys, err = c.api.Cryptokeys.List(ctx, zone)
		return err
	})
	var ae *APIError
	if err != nil && errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, nil
	}
	return keys, err
}

// activeDS is the SHA-256 DS of every active key that signs keys (KSK or
// CSK), sorted: what the parent must publish.
func activeDS(keys []pdns.Cryptokey) []string {
	var out []string
	for _, k := range keys {
		if !pdns.BoolValue(k.Active) {
			continue
		}
		switch strings.ToLower(pdns.StringValue(k.KeyType)) {
		case "ksk", "csk":
		default:
			continue
		}
		for _, ds := range k.DS {
			if f := strings.Fields(ds); len(f) == 4 && f[2] == dsDigestType {
				out = append(out, strings.ToLower(strings.Join(f, " ")))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// planSigning adds the "sign zone" change when the zone wants DNSSEC and
// has no active key (or does not exist yet).
func (d *Driver) planSigning(ctx context.Context, step *graph.Step, c *client, absent bool, b *batch) error {
	if !step.Zone.DNSSEC {
		return nil
	}
	if !absent {
		keys, err := d.cryptokeys(ctx, c, step.Zone.Name)
		if err != nil {
			return fmt.Errorf("read the keys of zone %s at %s: %w; nothing is planned for this zone", step.Zone.Name, c.base, err)
		}
		if ds := activeDS(keys); len(ds) > 0 || hasActive(keys) {
			b.ds = ds
			return nil
		}
	}
	b.sign = true
	b.changes = append(b.changes, plan.Change{Key: dnsplan.Key(step.Zone.Name, step.Zone.Name, "DNSKEY"), Step: step.ID, Phase: step.Phase,
		Tenant: step.Tenant, Action: plan.ActionCreate, Impact: plan.ImpactLive,
		Reason: "sign zone: add an active CSK (ECDSA P-256, algorithm 13); PowerDNS signs every answer from then on. The parent must publish the DS, shown after apply",
		After:  map[string]any{"keytype": "csk", "algorithm": 13, "active": true}})
	return nil
}

func hasActive(keys []pdns.Cryptokey) bool {
	return slices.ContainsFunc(keys, func(k pdns.Cryptokey) bool { return pdns.BoolValue(k.Active) })
}

// sign adds the key, rectifies the zone (so that its NSEC chain and
// delegation flags cover the records written before it was signed), and
// returns the DS the parent must publish.
func (d *Driver) sign(ctx context.Context, c *client, zone string) ([]string, error) {
	path := "zones/" + url.PathEscape(zone) + "/cryptokeys"
	// A POST that may have added the key is not sent again: it would
	// add a second one.
	err := d.retryUnapplied(ctx, func(ctx context.Context) error { return c.raw.do(ctx, http.MethodPost, path, newKey, nil) })
	if err != nil && strings.Contains(err.Error(), "DNSSEC not enabled") {
		return nil, fmt.Errorf("sign zone %s: the server keeps no keys: enable DNSSEC in its backend (gsqlite3-dnssec=yes, gmysql-dnssec=yes, gpgsql-dnssec=yes in pdns.conf), restart it and run site apply again (%w)", zone, err)
	}
	if mayHaveApplied(err) {
		return nil, writeFailed(fmt.Sprintf("sign zone %s: add a key (the records are written)", zone), err)
	}
	if err != nil {
		return nil, hint.Errorf(hint.Hint{Kind: hint.RunAgain}, "sign zone %s: add a key: %w; the records are written, not yet signed", zone, err)
	}
	err = d.retry(ctx, func(ctx context.Context) error {
		return c.raw.do(ctx, http.MethodPut, "zones/"+url.PathEscape(zone)+"/rectify", nil, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("sign zone %s: the key is added, but rectifying the zone failed: %w; run pdnsutil rectify-zone %s", zone, err, zone)
	}
	keys, err := d.cryptokeys(ctx, c, zone)
	if err != nil {
		return nil, fmt.Errorf("sign zone %s: the key is added, but reading it back failed: %w", zone, err)
	}
	return activeDS(keys), nil
}

// dsNote says what the parent of zone must publish.
func dsNote(zone string, ds []string) string {
	if len(ds) == 0 {
		return fmt.Sprintf("zone %s is signed, but its keys show no SHA-256 DS: check them with pdnsutil show-zone %s", zone, zone)
	}
	return fmt.Sprintf("zone %s is signed: its parent must publish DS %s (site writes it there when the parent is a zone of the same tenant)", zone, strings.Join(ds, ", "))
}

// planNotes are what site diff says about a signed zone: the DS its
// parent must publish, read from the keys planSigning read (no request
// of its own). A zone signed in this apply has no DS yet: its "sign
// zone" change says so.
func planNotes(zone *model.Zone, b *batch) []string {
	if !zone.DNSSEC || b.sign {
		return nil
	}
	if zone.DSParent != "" && len(b.ds) > 0 {
		// Its parent's plan shows the DS it writes, when it changes.
		return nil
	}
	if len(b.ds) == 0 {
		return []string{fmt.Sprintf("zone %s is signed, but its keys show no SHA-256 DS: check them with pdnsutil show-zone %s", zone.Name, zone.Name)}
	}
	var out []string
	for _, ds := range b.ds {
		out = append(out, backends.DSNote(zone.Name, ds))
	}
	return out
}

// withChildDS returns step with the DS of its signed children among its
// wanted RRsets (dnsplan.WithChildDS), the children signed in this
// apply and the notes of those with no DS.
func (d *Driver) withChildDS(ctx context.Context, step *graph.Step, run *backends.Run) (*graph.Step, []*model.Zone, []string, error) {
	in := backends.InputsOf(ctx)
	return dnsplan.WithChildDS(step, func(child *model.Zone) (dnsplan.ChildDS, error) {
		return d.childDS(ctx, step.Zone, child, in, run)
	})
}

// childDS is what parent knows of child's DS. A PowerDNS child's is
// read from its keys, so that it is known even when the child's step is
// out of scope; any other child's is what its own step told the
// parent's (in).
func (d *Driver) childDS(ctx context.Context, parent, child *model.Zone, in backends.Inputs, run *backends.Run) (dnsplan.ChildDS, error) {
	if child.Provider.PowerDNS == nil {
		return dnsplan.SignerChildDS(in, child), nil
	}
	cc, err := d.zoneClient(child, run)
	if err != nil {
		return dnsplan.ChildDS{}, fmt.Errorf("zone %s publishes the DS of %s: %w", parent.Name, child.Name, err)
	}
	keys, err := d.cryptokeys(ctx, cc, child.Name)
	if err != nil {
		return dnsplan.ChildDS{}, fmt.Errorf("zone %s publishes the DS of %s: read its keys at %s: %w; nothing is planned for zone %s", parent.Name, child.Name, cc.base, err, parent.Name)
	}
	return keysDS(child.Name, keys), nil
}

// keysDS is what a parent publishes for a PowerDNS child with keys:
// their DS; pending while it has no active key (its step adds one in
// this apply); none, with a note, for active keys without a SHA-256 DS.
func keysDS(child string, keys []pdns.Cryptokey) dnsplan.ChildDS {
	if ds := activeDS(keys); len(ds) > 0 {
		return dnsplan.ChildDS{DS: ds}
	}
	if hasActive(keys) {
		return dnsplan.ChildDS{Note: fmt.Sprintf("the DS of %s is not written: its keys show no SHA-256 DS (check them with pdnsutil show-zone %s); any DS here stays as it is", child, child)}
	}
	return dnsplan.ChildDS{Pending: true}
}

// signerOutput is what this zone's step tells its parent's, for a
// parent that cannot read its keys (a Cloudflare parent): its DS, or
// that it is signed in this apply; nothing for an unsigned zone.
func signerOutput(zone *model.Zone, b *batch) backends.Output {
	switch {
	case !zone.DNSSEC:
		return backends.Output{}
	case b.sign:
		return backends.Output{Signer: &backends.SignerDS{Status: "signed in this apply", Pending: true}}
	}
	return backends.Output{Signer: &backends.SignerDS{DS: b.ds, Status: "active"}}
}

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
// alone, and its Apply plans the zone again, now with the key, and
// applies that (refusing if the new plan needs a gate not acknowledged).

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
	err := d.retry(ctx, func(ctx context.Context) error { return c.raw.do(ctx, http.MethodPost, path, newKey, nil) })
	if err != nil && strings.Contains(err.Error(), "DNSSEC not enabled") {
		return nil, fmt.Errorf("sign zone %s: the server keeps no keys: enable DNSSEC in its backend (gsqlite3-dnssec=yes, gmysql-dnssec=yes, gpgsql-dnssec=yes in pdns.conf), restart it and run site apply again (%w)", zone, err)
	}
	if err != nil {
		return nil, fmt.Errorf("sign zone %s: add a key: %w; the records are written, run site apply again to sign", zone, err)
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
// wanted RRsets, read from their keys, and the children whose key does
// not exist yet (their DS is ignored in this plan, see the package
// comment above). A Cloudflare child's DS is the one its own step read
// from Cloudflare and left in run; while there is none (DNSSEC off
// there, or the child not observed in this run) the parent's DS at the
// child is left alone and a note says why. step itself is not changed.
func (d *Driver) withChildDS(ctx context.Context, step *graph.Step, run *backends.Run) (*graph.Step, []*model.Zone, []string, error) {
	z := step.Zone
	if len(z.SignedChildren) == 0 {
		return step, nil, nil, nil
	}
	zc := *z
	zc.RRsets = slices.Clone(z.RRsets)
	zc.Ignore = slices.Clone(z.Ignore)
	var pending []*model.Zone
	var notes []string
	for _, child := range z.SignedChildren {
		var ds []string
		switch {
		case child.Provider.PowerDNS != nil:
			cc, err := d.zoneClient(child, run)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("zone %s publishes the DS of %s: %w", z.Name, child.Name, err)
			}
			keys, err := d.cryptokeys(ctx, cc, child.Name)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("zone %s publishes the DS of %s: read its keys at %s: %w; nothing is planned for zone %s", z.Name, child.Name, cc.base, err, z.Name)
			}
			ds = activeDS(keys)
		case child.Provider.Cloudflare != nil:
			signer, read := run.SignerDSOf(child.Name)
			if len(signer.DS) == 0 {
				zc.Ignore = append(zc.Ignore, model.IgnoreRule{Name: child.Name, Type: "DS"})
				notes = append(notes, unpublishedNote(child.Name, signer, read))
				continue
			}
			ds = signer.DS
		}
		if len(ds) == 0 {
			pending = append(pending, child)
			zc.Ignore = append(zc.Ignore, model.IgnoreRule{Name: child.Name, Type: "DS"})
			continue
		}
		zc.RRsets = append(zc.RRsets, &model.RRset{Name: child.Name, Type: "DS", TTL: z.TTL, Values: ds,
			Writer: model.Writer{Kind: model.WriterZoneRecords, Tenant: step.Tenant, Element: "dns.zones." + child.Name + ".dnssec", Pos: child.Pos}})
	}
	slices.SortFunc(zc.RRsets, dnsplan.Compare)
	sc := *step
	sc.Zone = &zc
	return &sc, pending, notes, nil
}

// unpublishedNote says why the parent writes no DS for a Cloudflare
// child, and leaves the one it has alone.
func unpublishedNote(child string, signer backends.SignerDS, read bool) string {
	if !read {
		return fmt.Sprintf("the DS of %s is not written: its Cloudflare DNSSEC status was not read in this run (out of scope or not observed), so any DS here stays as it is", child)
	}
	return fmt.Sprintf("the DS of %s is not written: Cloudflare's DNSSEC for it is %s, with no DS to publish; any DS here stays as it is", child, signer.Status)
}

// pendingDSChanges are the changes a parent plans for children not yet
// signed: their DS is written in the same apply, after their step.
func pendingDSChanges(step *graph.Step, pending []*model.Zone) []plan.Change {
	var out []plan.Change
	for _, child := range pending {
		out = append(out, plan.Change{Key: dnsplan.Key(step.Zone.Name, child.Name, "DS"), Step: step.ID, Phase: step.Phase, Tenant: step.Tenant,
			Action: plan.ActionCreate, Impact: plan.ImpactLive,
			Reason: fmt.Sprintf("the DS of %s, read from its key once its step has signed it in this apply", child.Name)})
	}
	return out
}

// replanForDS plans step again at apply time, once the children's keys
// exist, and returns that batch. It refuses a plan that needs a gate
// the run has not acknowledged, or whose children are still unsigned.
func (d *Driver) replanForDS(ctx context.Context, step *graph.Step, run *backends.Run) (*batch, error) {
	sp, err := d.Plan(ctx, step, run)
	if err != nil {
		return nil, fmt.Errorf("zone %s: planning again to write its children's DS: %w", step.Zone.Name, err)
	}
	b := sp.Detail.(*batch)
	if len(b.pendingDS) > 0 {
		var names []string
		for _, c := range b.pendingDS {
			names = append(names, c.Name)
		}
		return nil, fmt.Errorf("zone %s: %s still has no active key, so its DS cannot be written: apply its zone first (site apply without --target), then again", step.Zone.Name, strings.Join(names, ", "))
	}
	for _, c := range b.changes {
		for _, g := range c.Gates {
			if !run.Acked[g] {
				return nil, fmt.Errorf("zone %s: with its children's DS, %s %s needs %s, which this plan did not show: run site diff again and apply with --ack %s", step.Zone.Name, c.Action, c.Key, g, g)
			}
		}
	}
	return b, nil
}

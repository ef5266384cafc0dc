// Package cloudflare converges DNS zones hosted on Cloudflare through the
// v4 API, with github.com/cloudflare/cloudflare-go v0.119.0.
//
// Observe: the zone id by name, then every record in as few list calls
// as the API allows (per_page 5,000 by default). Only the record types
// site manages (A, AAAA, CNAME, TXT, MX, SRV, CAA, NS) are compared;
// every other record is left alone.
//
// Ownership: site writes the marker "managed by site tenant=NAME" into
// each record's comment. A wanted record that already exists with the
// same content, TTL and no proxying is a no-op if it is ours, and is
// adopted (a comment-only patch, plan.ActionAdopt) if it is foreign.
// Foreign data that differs at a wanted name (other content, TTL or
// proxying, or an A/AAAA beside a wanted CNAME and the reverse) is
// replaced only behind GATE-DNS-OVERWRITE. Records not wanted are deleted
// only when they carry this tenant's marker and the zone was observed
// completely; deleting more than Run.DeleteManyPercent of the tenant's
// RRsets in a zone holding at least Run.DeleteManyMin of them needs
// GATE-DNS-DELETE-MANY.
//
// Apply: every write goes through POST /zones/{id}/dns_records/batch
// (through the client's Raw call), in chunks of ChunkSize operations
// (200 by default, the Free plan's limit; up to 3,500 on paid plans),
// deletes first, then patches, puts and posts. A failed batch changed
// nothing (the API runs it in one transaction) and is reported so, with
// the number of earlier batches that were applied. The "already exists"
// codes 81053, 81054, 81057 and 81058 (and 81044, record does not exist)
// mean the observation was stale: Apply re-observes and re-plans once,
// refuses if the new plan needs a gate that was not acknowledged, and
// sends the new plan; it never retries a batch blindly.
//
// Rate limits and retries: see newAPI. Errors are classified by Classify
// into conflict, invalid, auth and transient.
//
// The API base URL is the zone's api_url, or DefaultAPIURL; the
// environment variable SITE_CLOUDFLARE_API_URL (EnvAPIURL), read through
// Run.Getenv, replaces both, so that a spec without api_url can be
// pointed at a test server. SITE_CLOUDFLARE_BATCH_SIZE (EnvBatchSize)
// sets the operations per batch for zones on a paid plan (up to 3,500).
package cloudflare

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cf "github.com/cloudflare/cloudflare-go"
	"golang.org/x/time/rate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// Limits and defaults.
const (
	DefaultChunkSize = 200  // operations per batch: the Free plan's limit
	MaxChunkSize     = 3500 // the paid plans' limit
	DefaultPerPage   = 5000 // records per list page
	DefaultRPS       = 4    // Cloudflare's 1,200 requests per 5 minutes
	DefaultRetries   = 4    // transport retries of a 429 (and of a failed GET)
	DefaultMaxWait   = time.Minute
)

// Driver converges graph.KindZone steps whose provider is Cloudflare.
// The zero value is usable; fields override the defaults above.
type Driver struct {
	ChunkSize int           // operations per batch request, 1..MaxChunkSize
	PerPage   int           // records per list page
	RPS       float64       // requests per second per token, shared by all zones
	Retries   int           // transport retries for 429, and for 5xx or no answer on GET
	MaxWait   time.Duration // longest single wait before a retry (caps Retry-After)
	// Transport carries the HTTP requests; http.DefaultTransport when nil.
	Transport http.RoundTripper

	mu       sync.Mutex
	limiters map[string]*rate.Limiter // one per API URL and token (hashed)
}

// New returns a Driver with the defaults.
func New() *Driver { return &Driver{} }

// EnvBatchSize, when set, replaces ChunkSize: the number of operations
// per batch request, 1 to 3,500 (the Free plan allows 200).
const EnvBatchSize = "SITE_CLOUDFLARE_BATCH_SIZE"

// chunk returns the batch size for this run.
func (d *Driver) chunk(run *backends.Run) (int, error) {
	n := d.ChunkSize
	if env := strings.TrimSpace(run.Getenv(EnvBatchSize)); env != "" {
		v, err := strconv.Atoi(env)
		if err != nil || v < 1 || v > MaxChunkSize {
			return 0, fmt.Errorf("%s=%q: set it to a number of operations from 1 to %d (200 on the Free plan)", EnvBatchSize, env, MaxChunkSize)
		}
		n = v
	}
	switch {
	case n <= 0:
		return DefaultChunkSize, nil
	case n > MaxChunkSize:
		return MaxChunkSize, nil
	}
	return n, nil
}

func (d *Driver) perPage() int {
	if d.PerPage > 0 {
		return d.PerPage
	}
	return DefaultPerPage
}

func (d *Driver) rps() float64 {
	if d.RPS > 0 {
		return d.RPS
	}
	return DefaultRPS
}

func (d *Driver) retries() int {
	if d.Retries > 0 {
		return d.Retries
	}
	return DefaultRetries
}

func (d *Driver) maxWait() time.Duration {
	if d.MaxWait > 0 {
		return d.MaxWait
	}
	return DefaultMaxWait
}

// detail is what Plan hands Apply. It holds a client (and so the token)
// but never leaves the process.
type detail struct {
	api      *cf.API
	zoneID   string
	chunk    int
	ops      []op
	requests *atomic.Int64
}

// Plan observes the zone and diffs it against the step's records.
func (d *Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	z := step.Zone
	if z == nil || z.Provider.Cloudflare == nil {
		return nil, fmt.Errorf("step %s: not a Cloudflare zone step", step.ID)
	}
	chunk, err := d.chunk(run)
	if err != nil {
		return nil, err
	}
	api, requests, err := d.client(step, run)
	if err != nil {
		return nil, err
	}
	obs, err := d.observe(ctx, api, z)
	if err != nil {
		return nil, err
	}
	df, err := diff(step, obs.records, run)
	if err != nil {
		return nil, err
	}
	return &backends.StepPlan{Step: step, Changes: df.changes, Fingerprint: obs.fingerprint(),
		Detail: &detail{api: api, zoneID: obs.zoneID, chunk: chunk, ops: df.ops, requests: requests}}, nil
}

// client builds the API client for a zone step.
func (d *Driver) client(step *graph.Step, run *backends.Run) (*cf.API, *atomic.Int64, error) {
	prov := step.Zone.Provider.Cloudflare
	token, err := run.Credential(prov.Token)
	if err != nil {
		return nil, nil, fmt.Errorf("Cloudflare API token for zone %s: %w", step.Zone.Name, err)
	}
	base := DefaultAPIURL
	if prov.APIURL != "" {
		base = prov.APIURL
	}
	if env := strings.TrimSpace(run.Getenv(EnvAPIURL)); env != "" {
		base = env
	}
	requests := new(atomic.Int64)
	api, err := d.newAPI(strings.TrimRight(base, "/"), token, requests)
	if err != nil {
		return nil, nil, fmt.Errorf("Cloudflare client for zone %s: %w", step.Zone.Name, err)
	}
	return api, requests, nil
}

// observation is one complete read of a zone.
type observation struct {
	zoneID  string
	records []record
	// unmanaged lists "name TYPE" of records of types site does not
	// manage; they are never touched, and export names them.
	unmanaged []string
}

// fingerprint hashes what was observed, so a saved plan can be checked
// for staleness.
func (o *observation) fingerprint() string {
	lines := make([]string, 0, len(o.records))
	for _, r := range o.records {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %d %t %s", r.id, r.name, r.typ, r.value, r.ttl, r.proxied, r.comment))
	}
	sort.Strings(lines)
	h := sha256.Sum256([]byte(o.zoneID + "\n" + strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:])
}

// observe reads the zone id and every record, page by page. Any failure
// returns an error: a partial observation must plan nothing.
func (d *Driver) observe(ctx context.Context, api *cf.API, z *model.Zone) (*observation, error) {
	name := strings.TrimSuffix(z.Name, ".")
	zones, err := api.ListZonesContext(ctx, cf.WithZoneFilters(name, "", ""))
	if err != nil {
		return nil, describe(fmt.Sprintf("looking up Cloudflare zone %s", name), err)
	}
	var ids []string
	for _, zz := range zones.Result {
		// Compared in A-labels: the zone of an internationalised name
		// may come back in Unicode (the client sends the filter so).
		if c, err := dnsname.Canonical(strings.TrimSuffix(zz.Name, ".")+".", ""); err == nil && c == z.Name {
			ids = append(ids, zz.ID)
		}
	}
	switch len(ids) {
	case 0:
		return nil, fmt.Errorf("Cloudflare has no zone %s that this token can see: add the zone in Cloudflare (site does not create zones) or give the token Zone:Read and DNS:Edit on it", name)
	case 1:
	default:
		return nil, fmt.Errorf("Cloudflare returned %d zones named %s for this token: restrict the token to one account", len(ids), name)
	}
	obs := &observation{zoneID: ids[0]}
	rc := cf.ZoneIdentifier(obs.zoneID)
	// announced is the most records any page said the zone holds; a
	// listing that ends with fewer (an empty or info-less page before
	// the last) saw only part of the zone, and a record it missed could
	// be foreign data a create would then be written beside, ungated.
	announced, seen, page := 0, 0, 1
	for ; ; page++ {
		recs, info, err := api.ListDNSRecords(ctx, rc, cf.ListDNSRecordsParams{ResultInfo: cf.ResultInfo{Page: page, PerPage: d.perPage()}})
		if err != nil {
			return nil, describe(fmt.Sprintf("listing records of Cloudflare zone %s (page %d)", name, page), err)
		}
		seen += len(recs)
		if info != nil {
			announced = max(announced, info.Total)
		}
		for _, r := range recs {
			rec, ok, err := fromCloudflare(r)
			if err != nil {
				return nil, fmt.Errorf("zone %s: %w: fix or remove the record in Cloudflare", name, err)
			}
			if ok {
				obs.records = append(obs.records, rec)
			} else {
				obs.unmanaged = append(obs.unmanaged, fqdn(r.Name)+" "+r.Type)
			}
		}
		if info == nil || page >= info.TotalPages || len(recs) == 0 {
			break
		}
	}
	if seen < announced {
		return nil, fmt.Errorf("listing records of Cloudflare zone %s stopped at page %d with %d of the %d records the API announced, so the zone was not fully observed: re-run (it may have changed while it was read)", name, page, seen, announced)
	}
	return obs, nil
}

// Apply sends the planned operations in batches. On a stale observation
// it re-observes and re-plans once.
func (d *Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	det, ok := sp.Detail.(*detail)
	if !ok {
		return nil, fmt.Errorf("step %s: no Cloudflare plan to apply (plan it in this process first)", sp.Step.ID)
	}
	res := &backends.StepResult{}
	defer func() { res.Requests = int(det.requests.Load()) }()
	sent, err := d.send(ctx, det, sp.Step.Zone.Name, det.ops)
	res.Notes = append(res.Notes, sent...)
	if err == nil {
		return res, nil
	}
	if Classify(err) != ClassConflict {
		return res, err
	}
	// The zone changed between observe and apply (someone else wrote a
	// record, or an earlier run half-finished): look again and plan
	// again, once.
	res.Notes = append(res.Notes, fmt.Sprintf("%s: the zone changed since it was observed (%v); observed it again and re-planned", sp.Step.ID, err))
	obs, oerr := d.observe(ctx, det.api, sp.Step.Zone)
	if oerr != nil {
		return res, fmt.Errorf("%w; re-observing the zone failed: %v", err, oerr)
	}
	df, derr := diff(sp.Step, obs.records, run)
	if derr != nil {
		return res, derr
	}
	// An --ack covers the gated changes the user was shown, not new ones
	// that only the second look found (a foreign record that appeared
	// mid-run is not overwritten on the strength of another change's ack).
	shown := map[string]bool{}
	for _, c := range sp.Changes {
		for _, g := range c.Gates {
			shown[c.Key+"\x00"+string(g)] = true
		}
	}
	var missing []string
	for _, c := range df.changes {
		for _, g := range c.Gates {
			switch {
			case !run.Acked[g]:
				missing = append(missing, fmt.Sprintf("%s needs %s", c.Key, g))
			case !shown[c.Key+"\x00"+string(g)]:
				missing = append(missing, fmt.Sprintf("%s newly needs %s (not in the plan you acknowledged)", c.Key, g))
			}
		}
	}
	if len(missing) > 0 {
		return res, fmt.Errorf("zone %s changed since it was observed and the new plan needs gates that were not acknowledged for these changes (%s): run site diff again and review", sp.Step.Zone.Name, strings.Join(missing, "; "))
	}
	sent, err = d.send(ctx, det, sp.Step.Zone.Name, df.ops)
	res.Notes = append(res.Notes, sent...)
	if err != nil {
		return res, fmt.Errorf("after re-observing the zone once: %w", err)
	}
	return res, nil
}

// BatchError is a failed batch request.
type BatchError struct {
	Zone    string
	Index   int // 1-based
	Of      int
	Applied int // operations applied by earlier batches
	Err     error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("zone %s: batch %d of %d failed and changed nothing (Cloudflare applies a batch in one transaction); %d operations in earlier batches were applied: %v",
		e.Zone, e.Index, e.Of, e.Applied, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// send posts ops in chunks, in the order deletes, patches, puts, posts.
func (d *Driver) send(ctx context.Context, det *detail, zone string, ops []op) ([]string, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	ops = append([]op(nil), ops...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].kind < ops[j].kind })
	size := det.chunk
	n := (len(ops) + size - 1) / size
	done := 0
	for i := 0; i < n; i++ {
		part := ops[i*size : min((i+1)*size, len(ops))]
		req := batchBody{Deletes: []idOnly{}, Patches: []body{}, Puts: []body{}, Posts: []body{}}
		for _, o := range part {
			switch o.kind {
			case opDelete:
				req.Deletes = append(req.Deletes, idOnly{ID: o.id})
			case opPatch:
				req.Patches = append(req.Patches, o.body)
			case opPut:
				req.Puts = append(req.Puts, o.body)
			case opPost:
				req.Posts = append(req.Posts, o.body)
			}
		}
		if _, err := det.api.Raw(ctx, http.MethodPost, "/zones/"+det.zoneID+"/dns_records/batch", req, nil); err != nil {
			return []string{fmt.Sprintf("sent %d operations in %d of %d batches", done, i, n)},
				&BatchError{Zone: zone, Index: i + 1, Of: n, Applied: done, Err: describe("batch", err)}
		}
		done += len(part)
	}
	return []string{fmt.Sprintf("sent %d operations in %d batch request(s)", done, n)}, nil
}

type idOnly struct {
	ID string `json:"id"`
}

type batchBody struct {
	Deletes []idOnly `json:"deletes"`
	Patches []body   `json:"patches"`
	Puts    []body   `json:"puts"`
	Posts   []body   `json:"posts"`
}

// describe wraps a client error with what site was doing and what the
// user can do about it, keeping the cause for Classify: what was done,
// what went wrong, then what to do, so the advice ends the line.
func describe(doing string, err error) error {
	var hint string
	switch Classify(err) {
	case ClassAuth:
		hint = "the API token was refused: check that it is current and has Zone:Read and DNS:Edit on this zone"
	case ClassTransient:
		hint = "a temporary failure: re-run later"
	case ClassConflict:
		hint = "the zone changed since it was observed"
	default:
		hint = "Cloudflare refused the request"
	}
	if errors.Is(err, context.Canceled) {
		hint = "cancelled"
	}
	return fmt.Errorf("%s: %w; %s", doing, err, hint)
}

// Package cloudflare converges DNS zones hosted on Cloudflare through the
// v4 API, with github.com/cloudflare/cloudflare-go v0.119.0.
//
// Observe: the zone id by name, then every record in as few list calls
// as the API allows (per_page 5,000 by default), and the zone's DNS
// settings when the zone sets soa. Only the record types site manages
// (rdata.Types; a CNAME at the apex reads as an ALIAS) are compared;
// every other record is left alone. DNAME and DHCID Cloudflare does not
// have, which the compiler says.
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
// GATE-DNS-DELETE-MANY. These rules are backends/dnsplan's, shared with
// every DNS provider; this package groups records into its RRsets and
// encodes its decisions as batch operations (PlanHooks are the
// Cloudflare rules: its narrower CNAME conflict, and one marker per
// record, so that this tenant's records of a shared RRset are deleted
// alone).
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
// sends the new plan; it never retries a batch blindly. After the last
// batch, one list request reads the changed records back and compares
// them with what was written (verify.go); a difference is a
// StepResult problem, and the note says how each changed RRset is
// served (proxied or DNS only). Reads (GET) and writes are counted apart.
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
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	cf "github.com/cloudflare/cloudflare-go"
	"golang.org/x/time/rate"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/backends/internal/runstate"
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

// Driver converges plan.PhaseDNS steps whose provider is Cloudflare.
// The zero value is usable; fields override the defaults above.
type Driver struct {
	ChunkSize int // operations per batch request, 1..MaxChunkSize
	PerPage   int // records per list page
	// RPS, when set, paces every provider at this many requests per
	// second per token instead of the provider's rate (and its budget's
	// reading of Ratelimit headers); left 0, the rate paces.
	RPS     float64
	Retries int           // transport retries for 429, and for 5xx or no answer on GET
	MaxWait time.Duration // longest single wait before a retry (caps Retry-After)
	// MaxAnswerBytes bounds what is read of one answer; 0 means as
	// maxAnswer derives it from PerPage. Reading past it fails the
	// request with a *backends.AnswerTooLargeError.
	MaxAnswerBytes int64
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
	soa      map[string]any
	requests *calls
	// expect is what the sent ops should leave in the zone, checked
	// after apply with one list call (verify.go).
	expect []expectation
	// pendingDS are signed children whose key their step makes in this
	// apply: Apply adds their DS before it sends anything (pendingds.go).
	pendingDS []*model.Zone
	kept      dnsplan.Kept
	// seen are the records the plan observed, for the RRsets added when
	// it is applied (Complete); added names those, whose records Apply
	// lists again before it sends anything.
	seen      []record
	added     []dnsplan.NameType
	addedWant []*model.RRset
}

// Kept names the live RRsets the zone's ignore rules kept out of the plan.
func (d *detail) Kept() dnsplan.Kept { return d.kept }

// typed is the driver as a backends.Driver: its plans carry the
// operations their Apply sends.
func (d *Driver) typed() backends.Typed[*detail] {
	return backends.Typed[*detail]{Name: "Cloudflare", PlanD: d.planStep, ApplyD: d.applyStep}
}

// Plan observes the zone and diffs it against the step's records.
func (d *Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return d.typed().Plan(ctx, step, run)
}

func (d *Driver) planStep(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, *detail, error) {
	z := step.Zone
	if z == nil || z.Provider.Cloudflare == nil {
		return nil, nil, fmt.Errorf("step %s: not a Cloudflare zone step", step.ID)
	}
	chunk, err := d.chunk(run)
	if err != nil {
		return nil, nil, err
	}
	api, requests, err := d.client(step, run)
	if err != nil {
		return nil, nil, err
	}
	sp, det, err := d.plan(ctx, step, run, &detail{api: api, chunk: chunk, requests: requests})
	return sp, det, tokenFrom(err, step.Zone.Provider.Cloudflare.Token)
}

// plan observes the zone through det's client and plans it, with the DS
// of its signed children (dnssec.go); Apply calls it again for children
// signed in the same apply.
func (d *Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run, det *detail) (*backends.StepPlan, *detail, error) {
	z := step.Zone
	obs, err := d.observe(ctx, det.api, z)
	if err != nil {
		return nil, nil, err
	}
	withDS, pending, notes, err := withChildDS(step, backends.InputsOf(ctx))
	if err != nil {
		return nil, nil, err
	}
	df, err := diff(withDS, obs, run)
	if err != nil {
		return nil, nil, err
	}
	var out backends.Output
	if obs.dnssec != nil {
		notes = append(dnssecNotes(z.Name, z.DSParent, obs.dnssec), notes...)
		// The parent of this zone publishes this DS; its step depends
		// on this one, and is told it.
		out.Signer = &backends.SignerDS{DS: publishedDS(obs.dnssec), Status: obs.dnssec.Status}
	}
	changes := append(df.changes, dnsplan.PendingDSChanges(step, pending, df.kept)...)
	return &backends.StepPlan{Step: step, Changes: changes, Fingerprint: obs.fingerprint(), Notes: append(notes, df.notes...),
			Reads: int(det.requests.n.Load()), Output: out},
		&detail{api: det.api, zoneID: obs.zoneID, chunk: det.chunk, ops: df.ops, soa: df.soa, expect: df.expect, requests: det.requests,
			pendingDS: pending, seen: obs.records, kept: df.kept}, nil
}

// client builds the API client for a zone step.
func (d *Driver) client(step *graph.Step, run *backends.Run) (*cf.API, *calls, error) {
	return d.providerAPI(step.Zone.Provider, "zone "+step.Zone.Name, run)
}

// providerAPI builds the API client for provider prov (a Cloudflare
// one); what names what it is for in messages ("zone example.org.").
func (d *Driver) providerAPI(prov model.Provider, what string, run *backends.Run) (*cf.API, *calls, error) {
	cfp := prov.Cloudflare
	token, err := runstate.Credentials(run).Credential(run.Getenv, cfp.Token)
	if err != nil {
		return nil, nil, fmt.Errorf("Cloudflare API token for %s: %w", what, err)
	}
	base := DefaultAPIURL
	if cfp.APIURL != "" {
		base = cfp.APIURL
	}
	if env := strings.TrimSpace(run.Getenv(EnvAPIURL)); env != "" {
		base = env
	}
	if _, err := endpoint.Check(base, cfp.Plaintext); err != nil {
		return nil, nil, fmt.Errorf("Cloudflare API URL for %s: %w", what, err)
	}
	requests := new(calls)
	api, err := d.newAPI(strings.TrimRight(base, "/"), token, requests, run, prov.Name, prov.Rate)
	if err != nil {
		return nil, nil, fmt.Errorf("Cloudflare client for %s: %w", what, err)
	}
	return api, requests, nil
}

// Apply sends the planned operations in batches, then lists the changed
// records back and compares them with what was written (verify.go). On
// a stale observation it re-observes and re-plans once.
func (d *Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return d.typed().Apply(ctx, sp, run)
}

func (d *Driver) applyStep(ctx context.Context, sp *backends.StepPlan, det *detail, run *backends.Run) (*backends.StepResult, error) {
	res, err := d.apply(ctx, sp, det, run)
	return res, tokenFrom(err, sp.Step.Zone.Provider.Cloudflare.Token)
}

func (d *Driver) apply(ctx context.Context, sp *backends.StepPlan, det *detail, run *backends.Run) (*backends.StepResult, error) {
	res := &backends.StepResult{}
	start := det.requests.mark()
	defer func() { res.Requests, res.Reads, res.Writes = det.requests.since(start) }()
	zone := sp.Step.Zone.Name
	if len(det.pendingDS) > 0 {
		// The children's steps have signed them by now.
		withDS, err := d.withPendingDS(ctx, sp.Step, det, run)
		if err != nil {
			return res, err
		}
		det = withDS
	}
	if err := d.asObserved(ctx, det, zone); err != nil {
		return res, err
	}
	sent, err := d.send(ctx, det, zone, det.ops, run)
	res.Notes = append(res.Notes, sent...)
	if err == nil {
		return res, d.finish(ctx, det, zone, det.soa, det.expect, res)
	}
	// An interrupted run starts nothing new, a second look included.
	if Classify(err) != backends.ClassConflict || run.Interrupted() {
		return res, err
	}
	// The zone changed between observe and apply (someone else wrote a
	// record, or an earlier run half-finished): look again and plan
	// again, once.
	res.Notes = append(res.Notes, fmt.Sprintf("%s: the zone changed since it was observed (%v); observed it again and re-planned", sp.Step.ID, err))
	df, err := d.replan(ctx, det, sp, err, run)
	if err != nil {
		return res, err
	}
	sent, err = d.send(ctx, det, zone, df.ops, run)
	res.Notes = append(res.Notes, sent...)
	if err != nil {
		return res, fmt.Errorf("after re-observing the zone once: %w", err)
	}
	return res, d.finish(ctx, det, zone, df.soa, df.expect, res)
}

// finish writes the SOA settings, then verifies what was sent: a
// difference is a problem of the step, which fails the run (as a
// PowerDNS zone that serves other data than was written does).
func (d *Driver) finish(ctx context.Context, det *detail, zone string, soa map[string]any, expect []expectation, res *backends.StepResult) error {
	sent, err := writeSOA(ctx, det, zone, soa)
	res.Notes = append(res.Notes, sent...)
	if err != nil {
		return err
	}
	c, err := d.verify(ctx, det, zone, expect)
	if err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("zone %s: written, but could not be read back to verify: %v", zone, err))
		return nil
	}
	res.Problems = append(res.Problems, c.problems...)
	if c.note != "" {
		res.Notes = append(res.Notes, c.note)
	}
	return nil
}

// replan observes the zone again after a stale write (cause) and plans
// it again. An --ack covers the gated changes the user was shown, not
// new ones that only the second look found (a foreign record that
// appeared mid-run is not overwritten on the strength of another
// change's ack).
func (d *Driver) replan(ctx context.Context, det *detail, sp *backends.StepPlan, cause error, run *backends.Run) (*diffResult, error) {
	obs, err := d.observe(ctx, det.api, sp.Step.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w; re-observing the zone failed: %v", cause, err)
	}
	// The children's DS are wanted as in the first plan, not deleted,
	// and so is what was added to it (Complete).
	withDS, _, _, err := withChildDS(sp.Step, backends.InputsOf(ctx))
	if err != nil {
		return nil, err
	}
	df, err := diff(withAdded(withDS, det), obs, run)
	if err != nil {
		return nil, err
	}
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
		return nil, fmt.Errorf("zone %s changed since it was observed and the new plan needs gates that were not acknowledged for these changes (%s): run site diff again and review", sp.Step.Zone.Name, strings.Join(missing, "; "))
	}
	return df, nil
}

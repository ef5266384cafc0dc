// Package powerdns converges DNS zones hosted on a PowerDNS Authoritative
// server through its HTTP API, with github.com/joeig/go-powerdns/v3.
//
// For each zone step the driver makes one GET of the whole zone, compares
// every rrset with what the spec wants and plans changes; apply sends them
// as one atomic PATCH (DELETEs first, then REPLACEs, so an A can turn into
// a CNAME without PowerDNS answering 422), split only when the body would
// pass the server's webserver-max-bodysize. A missing zone is created as a
// Native zone with SOA-EDIT-API DEFAULT, its rrsets in the same POST.
// Writes to one server go one at a time across the run's steps (SQLite,
// the backend of small sites, refuses concurrent writers); observations
// stay parallel.
//
// Ownership lives on the rrset itself: site writes a comment with account
// "site" and content "managed by site tenant=NAME" (see Marker). An rrset
// without it is foreign: identical foreign data is adopted (a comments-only
// change), anything else at a wanted name is an overwrite behind
// GATE-DNS-OVERWRITE. Only rrsets carrying this tenant's marker are ever
// deleted, and only from a fully observed zone; many deletes at once need
// GATE-DNS-DELETE-MANY. The SOA is never touched, nor the apex NS unless
// the spec names it. These rules are backends/dnsplan's, shared with
// every DNS provider; this package observes into its RRsets and encodes
// its decisions as PATCH rrsets (PlanHooks are the PowerDNS rules).
//
// After apply the driver asks the server's DNS port what it now serves for
// every changed name and type and reports any difference as a problem
// (see Driver.VerifyAddr for where it asks).
package powerdns

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	pdns "github.com/joeig/go-powerdns/v3"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/endpoint"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// DefaultMaxBodyBytes is PowerDNS's default webserver-max-bodysize (2 MB).
const DefaultMaxBodyBytes = 2 << 20

// DefaultMaxAnswerBytes bounds what site reads of one answer (1 GiB).
// The largest answer is a zone's GET, all of its rrsets at once, and
// PowerDNS bounds neither a zone's rrsets nor a record's size (a TXT may
// hold 64 KiB), so no bound follows from the API. Measured against
// pdnstest, a zone of 50,000 rrsets with owner markers answers 11.5 MB
// (all A) to 12.8 MB (A, AAAA, MX and SPF-sized TXT): about 250 bytes an
// rrset. 1 GiB is some 4 million such rrsets, 80 times the largest
// zone the benchmarks run, so an answer past it is not a zone: a proxy
// that streams without end, or a url that names something else.
const DefaultMaxAnswerBytes = 1 << 30

// EnvDNSAddr names the environment variable that tells the driver where
// to send its verification queries (host:port), or "off" to skip them.
const EnvDNSAddr = "SITE_PDNS_DNS_ADDR"

// Driver converges plan.PhaseDNS steps whose zone names a PowerDNS
// provider. The zero value is ready to use.
type Driver struct {
	// HTTPClient carries every API request; nil means backends/endpoint's
	// client. Whichever it is, redirects follow endpoint.CheckRedirect
	// and answers are read no further than MaxAnswerBytes.
	// Give it no Timeout: use Driver.Timeout, which ends with each try.
	HTTPClient *http.Client
	// Timeout bounds one try of one request; 0 means 60 s.
	Timeout time.Duration
	// RequestTimeout bounds one request, its tries and the waits
	// between them included; 0 means the run's (Run.RequestTimeout,
	// site's --request-timeout), else backends.DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxBodyBytes is the largest PATCH body sent in one request; set it
	// to the server's webserver-max-bodysize. 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int
	// VerifyAddr returns host:port of the DNS listener serving zone, asked
	// after apply. nil means: the provider's dns: in site.cue when set
	// ("off" skips verification), else $SITE_PDNS_DNS_ADDR when set (read through
	// Run.Getenv; "off" skips verification), else the API URL's host on
	// port 53. An empty result skips verification, with a note.
	VerifyAddr func(zone *model.Zone, run *backends.Run) string
	// MaxAnswerBytes bounds what is read of one answer; 0 means
	// DefaultMaxAnswerBytes. Reading past it fails the request with a
	// *backends.AnswerTooLargeError, which is not retried.
	MaxAnswerBytes int64
	// Attempts bounds the tries of one request that fails transiently
	// (connection refused, 5xx, 429). 0 means 3.
	Attempts int
	// Backoff is the wait before the second try; it doubles per try, and
	// up to half of it is random jitter. 0 means 200 ms.
	Backoff time.Duration

	// writers serialises the writes to each server (see servers).
	writers servers
}

var _ backends.Driver = (*Driver)(nil)

// Marker is the owner marker's comment content for tenant.
func Marker(tenant string) string { return backends.DNSMarker(tenant) }

// MarkerAccount is the owner marker's comment account.
const MarkerAccount = "site"

func (d *Driver) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return 60 * time.Second
}

func (d *Driver) maxAnswer() int64 {
	if d.MaxAnswerBytes > 0 {
		return d.MaxAnswerBytes
	}
	return DefaultMaxAnswerBytes
}

func (d *Driver) maxBody() int {
	if d.MaxBodyBytes > 0 {
		return d.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

// client is one step's API client, with its own request counter.
type client struct {
	api   *pdns.Client
	count *countingTransport
	base  string // URL, for messages
	// writeLock is held for every write to this client's server: shared
	// by zone creations (POSTs), exclusive for every other write (see
	// servers).
	writeLock *sync.RWMutex
	// raw sends what go-powerdns cannot say (an empty comments list, zone
	// metadata by kind): the same HTTP client, origin and key as api.
	raw rawAPI
}

// newClient resolves the API key and builds a client. The key is never
// put in an error or a message.
func (d *Driver) newClient(step *graph.Step, run *backends.Run) (*client, error) {
	if step.Zone.Provider.PowerDNS == nil {
		return nil, fmt.Errorf("step %s: zone %s has no powerdns provider", step.ID, step.Zone.Name)
	}
	return d.zoneClient(step.Zone, run)
}

// zoneClient is newClient for a zone of another step (a signed child
// whose keys a parent reads).
func (d *Driver) zoneClient(zone *model.Zone, run *backends.Run) (*client, error) {
	if zone.Provider.PowerDNS == nil {
		return nil, fmt.Errorf("zone %s has no powerdns provider", zone.Name)
	}
	c, err := d.providerClient(zone.Provider, run)
	if err != nil {
		return nil, fmt.Errorf("zone %s: %w", zone.Name, err)
	}
	return c, nil
}

// providerClient builds a client for provider prov (a PowerDNS one),
// for the requests of no one zone (site leftovers' zone list) and of
// every zone.
func (d *Driver) providerClient(prov model.Provider, run *backends.Run) (*client, error) {
	p := prov.PowerDNS
	// go-powerdns v3.17.0 calls log.Fatalf on a URL it cannot parse, so
	// check it here and return an error instead; the check also applies
	// the transport rules (backends/endpoint).
	if _, err := endpoint.Check(p.URL, p.Plaintext); err != nil {
		return nil, fmt.Errorf("powerdns url: %w", err)
	}
	key, err := runstate.Credentials(run).Credential(run.Getenv, p.APIKey)
	if err != nil {
		return nil, fmt.Errorf("read the PowerDNS API key: %w", err)
	}
	hc := d.HTTPClient
	if hc == nil {
		hc = endpoint.Client(nil)
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	base = backends.CapAnswers(base, d.maxAnswer(), "PowerDNS provider "+prov.Name,
		"no PowerDNS answer site reads is this large (a zone of 50,000 rrsets answers about 13 MB): "+
			"check the url of provider "+prov.Name+" in site.cue (it must name the PowerDNS API itself) and any proxy between site and the server")
	// A server that stops answering is named, with the request it holds.
	prefix := "/api/v1/servers/" + p.Server + "/"
	// Every request of the run to this provider keeps within its rate
	// (backends.Budget), whichever step sends it.
	ct := &countingTransport{base: backends.PaceTransport(backends.AwaitTransport(base, run, fmt.Sprintf("PowerDNS %s (%s)", prov.Name, p.URL),
		func(r *http.Request) string {
			path := r.URL.Path
			if i := strings.Index(path, prefix); i >= 0 {
				path = path[i+len(prefix):]
			}
			return r.Method + " " + path
		}), run.Budget(prov.Name, prov.Rate))}
	wrapped := *hc
	wrapped.Transport = ct
	// Whatever client the caller gave, the key stays on this origin.
	wrapped.CheckRedirect = endpoint.CheckRedirect
	api := pdns.New(p.URL, p.Server, pdns.WithAPIKey(key), pdns.WithHTTPClient(&wrapped))
	return &client{api: api, count: ct, base: p.URL, writeLock: d.writers.lock(p.URL, p.Server),
		raw: rawAPI{http: &wrapped, base: strings.TrimRight(p.URL, "/"), server: p.Server, key: key}}, nil
}

// plan observes the zone with one GET and plans the changes. It reads
// as the one path a zone step takes (client, read, completeness, signed
// children's DS, planner, encoding), so it stays whole.
func (d *Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, *batch, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	if step.Zone == nil {
		return nil, nil, fmt.Errorf("step %s is not a zone step", step.ID)
	}
	c, err := d.newClient(step, run)
	if err != nil {
		return nil, nil, err
	}
	live, absent, err := d.observeZone(ctx, c, step.Zone, run)
	if err = cmp.Or(err, noZoneForNames(step, c.base, absent)); err != nil {
		return nil, nil, err
	}
	if !absent && (live == nil || !strings.EqualFold(pdns.StringValue(live.Name), step.Zone.Name)) {
		// A 200 that is not this zone (JSON null or {} from a proxy,
		// another zone's data) would read as a zone without rrsets, and
		// every wanted rrset would be written over what is really there.
		return nil, nil, fmt.Errorf("observe zone %s at %s: the answer is not this zone (it names %q); nothing is planned for this zone, deletes least of all: check the url and server of the provider",
			step.Zone.Name, c.base, zoneName(live))
	}
	if live != nil && live.Kind != nil {
		switch strings.ToLower(string(*live.Kind)) {
		case "slave", "consumer":
			// A secondary takes its data from its primary; writing it
			// through the API would be undone by the next transfer.
			return nil, nil, fmt.Errorf("zone %s at %s is a %s (secondary) zone: site writes only primary zones; point the provider at the primary server", step.Zone.Name, c.base, *live.Kind)
		}
	}
	if !absent {
		if err := complete(live, step.Zone.Name); err != nil {
			return nil, nil, incomplete(step.Zone.Name, c, err)
		}
	}
	withDS, pending, childNotes, err := d.withChildDS(ctx, step, run)
	if err != nil {
		return nil, nil, err
	}
	obs := observe(live)
	b := diff(withDS, obs, run)
	b.pendingDS, b.obs = pending, obs
	b.changes = append(b.changes, dnsplan.PendingDSChanges(step, pending, b.kept)...)
	if err := d.planSigning(ctx, step, c, absent, b); err != nil {
		return nil, nil, err
	}
	if !absent && len(b.changes) > 0 {
		// Only a plan that would write pays for this check.
		if err := d.apexNS(ctx, c, live, step.Zone.Name); err != nil {
			return nil, nil, incomplete(step.Zone.Name, c, err)
		}
	}
	b.client = c
	b.verifyAddr = d.verifyAddr(step.Zone, run)
	var problems, authNotes []string
	if !absent {
		problems, authNotes = askAuthority(ctx, run, b.verifyAddr, step.Zone, obs, b)
	}
	if absent {
		// The zone itself is a change too, so that a zone the spec wants
		// empty is still created, and the plan says it will be.
		b.create = true
		b.changes = append([]plan.Change{{Key: graph.ZoneStepID(step.Zone.Name), Step: step.ID, Phase: step.Phase, Tenant: step.Tenant,
			Action: plan.ActionCreate, Impact: plan.ImpactLive, Reason: "the zone does not exist: created as a Native zone with SOA-EDIT-API DEFAULT",
			After: map[string]any{"kind": "Native", "soa_edit_api": "DEFAULT"}}}, b.changes...)
		if step.Zone.RRset(step.Zone.Name, "NS") == nil {
			childNotes = append(childNotes, fmt.Sprintf("zone %s is created without NS records at its apex, so no parent can delegate to it: name its name servers in its records (\"@\": NS: [\"ns1.example.net.\", ...])", step.Zone.Name))
		}
		if step.Zone.SOA != nil {
			b.changes = append(b.changes, plan.Change{Key: dnsplan.Key(step.Zone.Name, step.Zone.Name, "SOA"), Step: step.ID, Phase: step.Phase,
				Tenant: step.Tenant, Action: plan.ActionUpdate, Impact: plan.ImpactLive,
				Reason: "the fields the zone's soa sets, written over the SOA PowerDNS makes with the zone; the serial stays the server's"})
		}
	}
	return &backends.StepPlan{Step: step, Changes: b.changes, Fingerprint: obs.fingerprint(), Notes: slices.Concat(planNotes(step.Zone, b), b.notes, childNotes, authNotes), Problems: problems,
		Reads: int(c.count.n.Load() - c.count.writes.Load()), Output: signerOutput(step.Zone, b)}, b, nil
}

// noZoneForNames is the error of a step of single names (Zone.Within)
// whose zone is absent from the server, nil for any other: it writes
// into the zone, never creates it.
func noZoneForNames(step *graph.Step, base string, absent bool) error {
	if !absent || step.Zone.Within == "" {
		return nil
	}
	return fmt.Errorf("zone %s is not on %s: tenant %s's single names are written into tenant %s's zone, which its apply creates; apply tenant %s first",
		step.Zone.Name, base, step.Tenant, step.Zone.Within, step.Zone.Within)
}

// apply sends the planned batch: one POST for a missing zone, else one
// PATCH (more only past the body limit), then verifies over DNS.
func (d *Driver) apply(ctx context.Context, sp *backends.StepPlan, b *batch, run *backends.Run) (*backends.StepResult, error) {
	ctx = backends.WithRun(ctx, run) // for backends.Retry
	res := &backends.StepResult{}
	planned := b.client.count
	start, startWrites := planned.n.Load(), planned.writes.Load()
	defer func() {
		res.Requests = int(planned.n.Load() - start)
		res.Writes = int(planned.writes.Load() - startWrites)
		res.Reads = res.Requests - res.Writes
	}()
	if len(b.pendingDS) > 0 {
		// The children's steps have signed them by now.
		withDS, err := d.withPendingDS(ctx, sp.Step, b, run)
		if err != nil {
			return res, err
		}
		b = withDS
	}
	if len(b.deletes) == 0 && len(b.replaces) == 0 && !b.create && !b.sign {
		return res, nil
	}
	zone := sp.Step.Zone.Name
	if len(b.deletes) > 0 || len(b.replaces) > 0 || b.create {
		if err := d.write(ctx, b, zone, run); err != nil {
			return res, err
		}
	}
	if b.sign {
		b.client.writeLock.Lock()
		ds, err := d.sign(ctx, b.client, zone)
		b.client.writeLock.Unlock()
		if err != nil {
			return res, err
		}
		b.ds = ds
		// A parent that cannot read this zone's keys learns its DS here.
		res.Output = backends.Output{Signer: &backends.SignerDS{DS: ds, Status: "active"}}
	}
	if sp.Step.Zone.DNSSEC {
		res.Notes = append(res.Notes, dsNote(zone, b.ds))
	}
	if b.create && sp.Step.Zone.SOA != nil {
		if err := d.soaAfterCreate(ctx, b, sp.Step, run); err != nil {
			return res, err
		}
	}
	leaveCreated(b, sp.Step.Zone, run)
	if b.verifyAddr == "" {
		res.Notes = append(res.Notes, fmt.Sprintf("zone %s: not verified over DNS: no DNS address (set %s=host:port)", zone, EnvDNSAddr))
		return res, nil
	}
	verifyInto(ctx, run, res, b.verifyAddr, zone, b.expect)
	return res, nil
}

// zoneName is the name a GET answer carries, "" when there is none.
func zoneName(z *pdns.Zone) string {
	if z == nil {
		return ""
	}
	return pdns.StringValue(z.Name)
}

// keySource names where the API key came from when the server refused
// it: the variable or vault path, never the value.
func keySource(err error, c model.Credential) string {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Class != backends.ClassAuth {
		return ""
	}
	switch {
	case c.Env != "":
		return " with the API key from env " + c.Env
	case c.Vault != nil:
		return " with the API key from vault " + c.Vault.Path + "#" + c.Vault.Key
	}
	return ""
}

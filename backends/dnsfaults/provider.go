// Package dnsfaults is one table of faults between site and a DNS
// provider's API: redirects (transport), answers without end (answer
// size), writes whose answer is lost or refused (lost answer), writes
// that stop between their parts (partial write), and reads of a zone
// that leave some of it out (partial read). Every DNS
// provider's tests run the same table against their own test server
// (pdnstest's real PowerDNS, cftest's fake Cloudflare) through a proxy
// the table controls, so a fault is written once and every provider
// meets it; what differs between providers (how an answer is spelt,
// what an error names) is the Provider's to say.
package dnsfaults

import (
	"context"
	"net/http"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// Provider is one DNS provider as the table drives it.
type Provider struct {
	// Name is how the provider's errors name it, its zone's provider
	// being called ProviderName: "PowerDNS provider faults".
	Name string
	// Secret is the API key or token: no error may hold it, and no
	// server but the provider's may get it.
	Secret string
	// NewZone makes a fresh zone on the test server for one case, with
	// a driver and a run of its own.
	NewZone func(t *testing.T) Zone
	// IsWrite reports whether r writes a zone's records (a PATCH, a
	// batch).
	IsWrite func(r *http.Request) bool
	// Class, when set, says how the provider classes err, ok false when
	// err is none of its classed errors.
	Class func(err error) (c backends.Class, ok bool)

	// Reads are the requests an answer without end is tried on.
	Reads []Read
	// AnswerSays is what an answer-too-large error says besides the
	// bound, the API being reached at api; AnswerNotSays what it must
	// not (the server answered, so a write may have been applied).
	AnswerSays    func(api string) []string
	AnswerNotSays []string

	// WriteError reports whether err is how the driver fails a write
	// that was sent, or (sent false) one that was not.
	WriteError func(err error, sent bool) bool
	// MayHave is how an error says a write may have been applied: the
	// error of a write the server acted on, whose answer was then lost,
	// says it, with LostSays and without LostNotSays; that of a write
	// the server did not act on does not.
	MayHave               string
	LostSays, LostNotSays []string
	// EmptyWriteAnswer says the API answers a write that worked with no
	// body (PowerDNS's 204): any 2xx then says the write was applied,
	// and one whose body is cut or not JSON is a success.
	EmptyWriteAnswer bool
	// RefusedSays is what the error of a write refused with status says
	// (that it changed nothing); GoneSays what that of a write that
	// never left site says.
	RefusedSays func(status int) string
	GoneSays    string
	// Refusal is how the provider's API refuses a write it did not
	// apply, with a status the driver does not retry.
	Refusal Answer

	// Partial is how the provider's zone reads come back short.
	Partial PartialReads
}

// Answer is an HTTP answer of JSON.
type Answer struct {
	Status int
	Body   string
}

func (a Answer) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	_, _ = w.Write([]byte(a.Body))
}

// ProviderName names the zone's provider in every case.
const ProviderName = "faults"

// Zone is a zone on a provider's test server, with the driver and run
// that converge it.
type Zone interface {
	// Name is the zone's name, with its final dot.
	Name() string
	// API is the URL of the test server's API, as a zone's provider
	// names it.
	API() string
	// SetMaxAnswer bounds the answers the driver reads, in bytes.
	SetMaxAnswer(n int64)
	// Split makes the driver send a write of PartRecords records in
	// parts, tried once each, and returns how many records the first
	// part holds and how many parts there are.
	Split() (first, parts int)
	// Plan plans the zone holding rrsets, its API reached at api.
	Plan(ctx context.Context, api string, rrsets ...*model.RRset) (*backends.StepPlan, error)
	Apply(ctx context.Context, sp *backends.StepPlan) (*backends.StepResult, error)
	Run() *backends.Run
	// Served returns how many values the server holds at name and type.
	Served(t *testing.T, name, typ string) int
}

// PartRecords is how many records a split write (Zone.Split) holds.
const PartRecords = 5

// Read is one request an answer without end is tried on.
type Read struct {
	Name string
	// Match reports whether r is the request, for zone.
	Match func(r *http.Request, zone string) bool
	// Answer is the start of its answer and one item that repeats
	// without end after it.
	Answer func(zone string) (start, item string)
	// Do makes the request, the API reached at api.
	Do func(ctx context.Context, z Zone, api string) error
}

// Run runs the table against p.
func Run(t *testing.T, p Provider) {
	t.Run("transport", func(t *testing.T) { transport(t, p) })
	t.Run("answer size", func(t *testing.T) { answerSize(t, p) })
	t.Run("lost answer", func(t *testing.T) { lostAnswer(t, p) })
	t.Run("partial write", func(t *testing.T) { partialWrite(t, p) })
	t.Run("partial read", func(t *testing.T) { partialRead(t, p) })
}

// rr builds a wanted rrset.
func rr(name, typ string, ttl uint32, values ...string) *model.RRset {
	return &model.RRset{Name: name, Type: typ, TTL: ttl, Values: values}
}

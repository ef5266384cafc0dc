// Package backends is the contract between the executor and the systems
// site converges: a Driver observes a step's scope and plans what would
// change, then applies that plan; a Run carries what one site run shares
// between steps (its plan.Settings, the secrets read, the environment). Beside the contract it holds what every provider shares:
// the DNS owner marker, the zone snapshot site export adopts, the
// redactor that keeps credentials out of every message, and the bound on
// the size of an HTTP answer (CapAnswers).
//
// The executor that walks the step graph is backends/engine; it knows
// backends only through Driver. cmd/site builds the concrete backends
// (backends/powerdns, cloudflare, libvirt, vault) for each run and closes
// them at its end. Backends depend on the model and plan types, never
// on CUE.
//
// A backend reads every environment variable through Run.Getenv, so a
// run's environment is one value that tests can replace.
package backends

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Driver converges one kind of step.
type Driver interface {
	// Plan observes the live state that step converges, in as few calls
	// as the API allows, and returns what would change. An error means the
	// scope was not fully observed: the step plans nothing, deletes least
	// of all.
	Plan(ctx context.Context, step *graph.Step, run *Run) (*StepPlan, error)
	// Apply carries out a plan that Plan returned in this process. Gates
	// have been checked by the executor before any Apply is called. It
	// carries out that plan, not another: what it checks again before a
	// write is a narrow, named check that what the plan observed is
	// still there (a freshness check), and what only the apply can know
	// (a value its dependencies' Outputs give, see Inputs) is planned
	// against that observation rather than by planning the step again.
	// (Two re-plans remain: libvirt's VM and image steps whose pool did
	// not run when they were planned, whose volumes could not be read;
	// and Cloudflare's once after the server refused a batch as stale.)
	Apply(ctx context.Context, sp *StepPlan, run *Run) (*StepResult, error)
}

// Prefetcher is a DNS driver that can read a zone before the step that
// observes it runs: site diff reads the zones of unchanged (cached)
// specs while the rest of the load goes on (compiler.Options.Early).
// Prefetch returns the read, to run on any goroutine, or nil when it
// reads nothing ahead. The zone's observation in the same run takes
// what that read answered, waiting for it, or runs it itself when it
// has not started; a read nobody takes changes nothing. The read
// returns once its answer has been taken, or ctx ends: a caller that
// bounds the reads running at once bounds the answers held too (a big
// zone's decoded answer is tens of MB).
type Prefetcher interface {
	Prefetch(ctx context.Context, zone *model.Zone, run *Run) func()
}

// Discoverer is a backend that finds the steps only observing can name:
// resources that carry the owner marker of a tenant with steps in g but
// that its spec no longer declares (graph.Undeclared). The caller adds
// them to g (graph.With) before --target picks steps, so each removal is
// a step of its own. Discover only reads, and keeps what it read for the
// steps' Plan of the same run (a diff reads each host once); a run that
// must observe afresh after it (apply, under the tenants' locks) calls
// ForgetObserved first, and a step's Plan plans nothing for a resource
// gone meanwhile. An error says which hosts could not be listed: their
// undeclared resources are not in the graph (not knowing is not
// wanting), and the steps declared there fail their own observation.
type Discoverer interface {
	Discover(ctx context.Context, g *graph.Graph) ([]*graph.Step, error)
	ForgetObserved()
}

// StepPlan is what one step would change.
type StepPlan struct {
	Step    *graph.Step
	Changes []plan.Change
	// Fingerprint is a hash of what was observed in the step's scope; a
	// saved plan whose fingerprint differs from a fresh one is stale.
	Fingerprint string
	// Notes are lines for the user about the step that change nothing
	// (the DS a signed zone's parent must publish); the plan shows them
	// under the step.
	Notes []string
	// Problems are what observing found wrong that no change of the
	// plan fixes: an authoritative server answering other data than
	// the spec wants and the API holds (a non-resolving ALIAS). They
	// make diff fail, and apply too, so that what the check after an
	// apply found is not forgotten by the next run.
	Problems []string
	// detail is the driver's own data for Apply (the batch to send, the
	// XML to define, ...), of the type its Typed adapter names: set by
	// Typed.Plan, read by Typed.Apply and DetailOf. It never leaves the
	// process.
	detail any
	// Reads counts the API calls observing made, for a driver that
	// counts them; the engine adds those of the re-observation after
	// apply to the step's reads.
	Reads int
	// Output is what the step tells the steps that depend on it (see
	// Inputs).
	Output Output
}

// StepResult reports what an apply did beyond its planned changes.
type StepResult struct {
	// Problems are post-apply checks that failed, e.g. an authoritative
	// server answering other data than was written. They fail the run.
	Problems []string
	// Notes are informative lines for the user.
	Notes []string
	// Requests counts the API calls the step made, for benchmarks.
	Requests int
	// Waiting counts the planned changes the apply found made already
	// and only waiting for something no step does (a guest's next boot,
	// a network's restart): it did nothing for them. A step all of
	// whose changes wait is reported pending, not applied.
	Waiting int
	// Reads and Writes split Requests, for a driver that tells them
	// apart (a write changes something); both are 0 for one that does
	// not, and then the report says "requests".
	Reads, Writes int
	// Queries counts the DNS queries verification made; a zone
	// transfer is one.
	Queries int
	// Output, when not empty, is what the step tells its dependents
	// after the apply, in place of its plan's (a zone signed now has
	// its DS).
	Output Output
}

// GatedError is an observation failure the user may acknowledge with a
// gate to defer the step (and its dependents) and go on with the rest.
type GatedError struct {
	Gate plan.Gate
	Err  error
}

func (e *GatedError) Error() string { return e.Err.Error() }
func (e *GatedError) Unwrap() error { return e.Err }

// Run is what one site run shares between steps: the settings it was
// given (acknowledged gates, thresholds, restarts: plan.Settings, the
// one type the saved plan records), its environment, and, out of
// cmd/site's reach, what its steps hand each other (runstate.go).
type Run struct {
	plan.Settings
	// Getenv reads credentials named by {env: NAME} and every setting a
	// backend takes from the environment; os.Getenv by default.
	Getenv func(string) string
	// Slow hears of a request that has waited SlowAfter (0 means
	// DefaultSlowAfter) for its answer, then each time the wait has
	// doubled, from the request's own goroutine (see Await); nil hears
	// nothing.
	Slow      func(a Awaited, waited time.Duration)
	SlowAfter time.Duration
	// Progress hears, as a line for the user, a wait of a step's own
	// that is no request to a server (a guest asked to shut down); nil
	// hears nothing. See Say.
	Progress func(line string)
	// RequestTimeout bounds each request of a driver that retries with
	// backends.Retry, its tries and the waits between them included
	// (see deadline.go); 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration

	await awaiting        // see Await
	state *runstate.State // what steps hand each other, nil until the engine starts the run; see runstate.go
	mu    sync.Mutex
	// silent are the servers that let a request pass its deadline
	// unanswered, by Awaited.Server (see deadline.go).
	silent map[string]*NoAnswerError
	// budgets are the providers' request budgets, by provider name
	// (see Budget).
	budgets map[string]*Budget
}

// Say tells r.Progress line, if r and it are not nil.
func (r *Run) Say(line string) {
	if r != nil && r.Progress != nil {
		r.Progress(line)
	}
}

// The default GATE-DNS-DELETE-MANY and GATE-DNS-UPDATE-MANY thresholds
// (plan.Settings).
const (
	DefaultDeleteManyPercent = plan.DefaultDeleteManyPercent
	DefaultDeleteManyMin     = plan.DefaultDeleteManyMin
	DefaultUpdateManyPercent = plan.DefaultUpdateManyPercent
)

// NewRun returns a Run with the default settings.
func NewRun() *Run {
	return &Run{Settings: plan.DefaultSettings(), Getenv: os.Getenv}
}

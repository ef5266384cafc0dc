package backends

import (
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// redacted stands in for a secret value in any text a user reads.
const redacted = "[redacted]"

// Redactor scrubs credential values from text the executor reports.
// Drivers should never put a credential into an error, but an HTTP
// client's error can echo a URL or a header; the executor scrubs every
// reason, problem and note so a slip cannot reach the screen or a saved
// plan. It knows the secrets read in the run (runstate.State.SetSecret) and the
// values of the environment variables the graph's credentials name.
// Text that does not pass through the executor's reports, such as an
// export's errors, goes through one too: a backend may quote the header
// it was sent in its error answer.
type Redactor struct {
	run  *Run
	envs []string // values of the credentials' environment variables
}

// NewRedactor returns a Redactor for g's credentials and the secrets
// read in run, including those read after it was made.
func NewRedactor(g *graph.Graph, run *Run) *Redactor {
	r := &Redactor{run: run}
	seen := map[string]bool{}
	add := func(c model.Credential) {
		if c.Env == "" || seen[c.Env] || run.Getenv == nil {
			return
		}
		seen[c.Env] = true
		if v := run.Getenv(c.Env); v != "" {
			r.envs = append(r.envs, v)
		}
	}
	for _, s := range g.Steps {
		if z := s.Zone; z != nil {
			add(z.Provider.Credential())
		}
		if sec := s.Secret; sec != nil && sec.Store != nil {
			add(sec.Store.Token)
			if a := sec.Store.AppRole; a != nil {
				add(a.RoleID)
				add(a.SecretID)
			}
		}
	}
	return r
}

// Redact replaces every known credential value in s with [redacted].
// Values shorter than 4 bytes are left alone: replacing them would garble
// ordinary words and they guard nothing.
func (r *Redactor) Redact(s string) string {
	for _, v := range r.values() {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, redacted)
		}
	}
	return s
}

func (r *Redactor) values() []string {
	return append(slices.Clip(r.envs), r.run.state.Secrets()...)
}

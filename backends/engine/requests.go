package engine

import (
	"fmt"
	"sort"
	"time"

	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/words"
)

// A provider's rate (site.cue's rate, Cloudflare's documented limit by
// default) paces every request of a run (backends.Budget); site diff
// says what the plan's apply will spend of it, so that a large first
// apply that must wait out its budget is no surprise.

// providerRequests is what the plan's apply will send one provider.
type providerRequests struct {
	name  string
	rate  *model.Rate
	zones int // zones with changes: a batch each, at least
}

// RequestNotes are a line per provider whose zones the plan changes:
// the requests its apply will send at least (a batch for each zone with
// changes), and, where that is more than its rate allows in one window,
// how long the apply will take at least, as its budget spaces requests
// per/requests apart.
func RequestNotes(g *graph.Graph, p *plan.Plan) []string {
	changed := map[string]bool{}
	for _, c := range p.Changes {
		changed[c.Step] = true
	}
	by := map[string]*providerRequests{}
	for _, s := range g.Steps {
		if s.Zone == nil || !changed[s.ID] {
			continue
		}
		prov := s.Zone.Provider
		pr := by[prov.Name]
		if pr == nil {
			pr = &providerRequests{name: prov.Name, rate: prov.Rate}
			by[prov.Name] = pr
		}
		pr.zones++
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		out = append(out, by[n].String())
	}
	return out
}

func (pr *providerRequests) String() string {
	line := fmt.Sprintf("provider %s: site apply will send at least %s (a batch for each zone with changes)",
		pr.name, words.Count(pr.zones, "request"))
	switch {
	case pr.rate == nil:
		return line + "; it has no rate"
	case pr.zones <= pr.rate.Requests:
		return line + fmt.Sprintf(", within its rate of %s", pr.rate)
	}
	spacing := pr.rate.Per / time.Duration(pr.rate.Requests)
	least := time.Duration(pr.zones-1) * spacing
	return line + fmt.Sprintf(", more than its rate of %s allows in one window: the apply will take at least %s", pr.rate, least.Truncate(time.Second))
}

package backends

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/plan"
)

// StalePlanError means a saved plan no longer describes what applying
// would do: the live systems or the spec changed since it was saved.
type StalePlanError struct {
	Steps   []string // the steps that differ, sorted
	Details []string // one line per step: what differs
}

func (e *StalePlanError) Error() string {
	return fmt.Sprintf("the plan is stale: %s; run site diff again", strings.Join(e.Details, "; "))
}

// CheckFresh compares a saved plan with a fresh one made from the same
// spec and scope, and returns a *StalePlanError when applying the fresh
// one could do anything the saved one did not show: a step's observed
// fingerprint differs, a step is missing from either, or a step's
// changes differ (the spec was edited). It returns nil when they agree.
func CheckFresh(saved, fresh *plan.Plan) error {
	why := map[string]string{}
	wasBlocked := map[string]bool{}
	for _, b := range saved.Blocked {
		wasBlocked[b.Step] = true
	}
	blockedNow := map[string]bool{}
	for _, b := range fresh.Blocked {
		blockedNow[b.Step] = true
	}
	for id, fp := range saved.Fingerprints {
		now, ok := fresh.Fingerprints[id]
		switch {
		case !ok && blockedNow[id]:
			why[id] = id + " could not be observed now"
		case !ok:
			why[id] = id + " is not in this run's scope (another spec, PATH, --only or --target than the saved plan's)"
		case now != fp:
			why[id] = id + " changed on the live system since the plan was saved"
		}
	}
	for id := range fresh.Fingerprints {
		if _, ok := saved.Fingerprints[id]; ok {
			continue
		}
		if wasBlocked[id] {
			why[id] = id + " was not observed when the plan was saved"
		} else {
			why[id] = id + " is not in the saved plan"
		}
	}
	was, now := changesByStep(saved), changesByStep(fresh)
	for id := range union(was, now) {
		if _, known := why[id]; !known && was[id] != now[id] {
			why[id] = id + " plans other changes now (was the spec edited?)"
		}
	}
	if len(why) == 0 {
		return nil
	}
	e := &StalePlanError{}
	for id := range why {
		e.Steps = append(e.Steps, id)
	}
	sort.Strings(e.Steps)
	for _, id := range e.Steps {
		e.Details = append(e.Details, why[id])
	}
	return e
}

// changesByStep renders each step's changes as canonical JSON, so a plan
// read back from a file (numbers as float64, lists as []any, structs as
// maps) compares equal to the one that wrote it.
func changesByStep(p *plan.Plan) map[string]string {
	by := map[string][]plan.Change{}
	for _, c := range p.Changes {
		by[c.Step] = append(by[c.Step], c)
	}
	out := map[string]string{}
	for id, cs := range by {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Key < cs[j].Key })
		out[id] = canonicalJSON(cs)
	}
	return out
}

func union(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// canonicalJSON marshals v, reads it back as plain JSON values and
// marshals those again: object keys come out sorted whatever Go type
// held them. A value JSON cannot hold cannot have come from a saved plan
// either, so its error text stands in and compares unequal.
func canonicalJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return err.Error()
	}
	if b, err = json.Marshal(plain); err != nil {
		return err.Error()
	}
	return string(b)
}

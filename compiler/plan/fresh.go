package plan

// This file holds the comparison apply --plan makes between a saved
// plan and a fresh one.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// StaleReason says why one step makes a saved plan stale. Callers
// branch on it (apply adds a hint about its flags when changes differ)
// instead of matching the message.
type StaleReason int

// Why a step of a saved plan is stale.
const (
	// StaleUnobserved: the step is in both scopes but could not be
	// observed now.
	StaleUnobserved StaleReason = iota + 1
	// StaleOutOfScope: the saved plan has the step, this run's scope
	// does not (another spec, PATH, --only or --target).
	StaleOutOfScope
	// StaleLiveChanged: what was observed differs (the fingerprints).
	StaleLiveChanged
	// StaleWasUnobserved: the step could not be observed when the plan
	// was saved, so the plan shows nothing of it.
	StaleWasUnobserved
	// StaleNew: this run's scope has a step the saved plan lacks.
	StaleNew
	// StaleChangesDiffer: the same observation now plans other changes:
	// the spec, or a flag that shapes the plan, differs.
	StaleChangesDiffer
	// StaleNotesDiffer: the step's notes differ. A note can carry what
	// the user acts on outside site (the DS a registrar must publish,
	// read from keys no fingerprint covers), so a plan that showed an
	// older one must not be applied as if the user had seen this one.
	StaleNotesDiffer
	// StaleAlreadyDone: the live system changed since the plan was saved
	// and the step now plans nothing: the saved plan was applied (its
	// second apply --plan) or its changes were made another way.
	StaleAlreadyDone
)

// explain says what r means for step id, for a user.
func (r StaleReason) explain(id string) string {
	switch r {
	case StaleUnobserved:
		return id + " could not be observed now"
	case StaleOutOfScope:
		return id + " is not in this run's scope (another spec, PATH, --only or --target than the saved plan's)"
	case StaleLiveChanged:
		return id + " changed on the live system since the plan was saved"
	case StaleWasUnobserved:
		return id + " was not observed when the plan was saved"
	case StaleNew:
		return id + " is not in the saved plan"
	case StaleChangesDiffer:
		return id + " plans other changes now (was the spec edited?)"
	case StaleNotesDiffer:
		return id + " notes other facts now (a zone's DS for its parent changed?)"
	case StaleAlreadyDone:
		return id + " already matches the spec: the plan was applied, or its changes were made another way, so nothing is left to apply for it"
	}
	return fmt.Sprintf("%s is stale (reason %d)", id, int(r))
}

// StaleStep is one step that differs between a saved plan and a fresh one.
type StaleStep struct {
	Step   string
	Reason StaleReason
	// Detail names the records (the change keys) whose planned change
	// differs, when any does: a step is a whole zone or VM, and the
	// user reviewing the fresh plan looks for these.
	Detail string
}

// StalePlanError means a saved plan no longer describes what applying
// would do: the live systems or the spec changed since it was saved.
type StalePlanError struct {
	Steps []StaleStep // sorted by step
}

func (e *StalePlanError) Error() string {
	details := make([]string, len(e.Steps))
	for i, s := range e.Steps {
		details[i] = s.Reason.explain(shown(s.Step))
		if s.Detail != "" {
			details[i] += " (" + s.Detail + ")"
		}
	}
	if !e.onlyDone() {
		return fmt.Sprintf("the plan is stale: %s; save a fresh one with site diff --out, review it and apply that", strings.Join(details, "; "))
	}
	return fmt.Sprintf("the plan is stale: %s; nothing to apply (site diff shows what the live systems hold now)", strings.Join(details, "; "))
}

// onlyDone reports whether every stale step of e is done already.
func (e *StalePlanError) onlyDone() bool {
	for _, s := range e.Steps {
		if s.Reason != StaleAlreadyDone {
			return false
		}
	}
	return true
}

// Has reports whether some step is stale for reason r.
func (e *StalePlanError) Has(r StaleReason) bool {
	for _, s := range e.Steps {
		if s.Reason == r {
			return true
		}
	}
	return false
}

// CheckFresh compares a saved plan with a fresh one made from the same
// spec and scope, and returns a *StalePlanError when applying the fresh
// one could do anything the saved one did not show: a step's observed
// fingerprint differs, a step is missing from either, or a step's
// changes differ (the spec was edited). It returns nil when they agree.
func CheckFresh(saved, fresh *Plan) error {
	why := map[string]StaleReason{}
	wasBlocked := map[string]bool{}
	for _, b := range saved.Blocked {
		wasBlocked[b.Step] = true
	}
	blockedNow := map[string]bool{}
	for _, b := range fresh.Blocked {
		blockedNow[b.Step] = true
	}
	was, now := changesByStep(saved), changesByStep(fresh)
	for id, fp := range saved.Fingerprints {
		fpNow, ok := fresh.Fingerprints[id]
		switch {
		case !ok && blockedNow[id]:
			why[id] = StaleUnobserved
		case !ok:
			why[id] = StaleOutOfScope
		case fpNow != fp && was[id] != "" && now[id] == "":
			why[id] = StaleAlreadyDone
		case fpNow != fp:
			why[id] = StaleLiveChanged
		}
	}
	for id := range fresh.Fingerprints {
		if _, ok := saved.Fingerprints[id]; ok {
			continue
		}
		if wasBlocked[id] {
			why[id] = StaleWasUnobserved
		} else {
			why[id] = StaleNew
		}
	}
	for id := range union(was, now) {
		if _, known := why[id]; !known && was[id] != now[id] {
			why[id] = StaleChangesDiffer
		}
	}
	wasNoted, nowNoted := notesByStep(saved), notesByStep(fresh)
	for id := range union(wasNoted, nowNoted) {
		if _, known := why[id]; !known && wasNoted[id] != nowNoted[id] {
			why[id] = StaleNotesDiffer
		}
	}
	if len(why) == 0 {
		return nil
	}
	e := &StalePlanError{}
	for id, r := range why {
		var detail string
		if r == StaleChangesDiffer || r == StaleLiveChanged {
			detail = changedKeys(id, saved, fresh)
		}
		e.Steps = append(e.Steps, StaleStep{Step: id, Reason: r, Detail: detail})
	}
	sort.Slice(e.Steps, func(i, j int) bool { return e.Steps[i].Step < e.Steps[j].Step })
	return e
}

// changesByStep renders each step's changes as canonical JSON, so a plan
// read back from a file (numbers as float64, lists as []any, structs as
// maps) compares equal to the one that wrote it.
func changesByStep(p *Plan) map[string]string {
	by := map[string][]Change{}
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

// keysShown bounds the change keys a stale step names; the fresh plan
// (site diff) shows them all.
const keysShown = 3

// changedKeys names the changes of step that differ between the saved
// plan and the fresh one: planned only now, no longer planned, or
// planned otherwise. When the live system changed and every change is
// the same, it says so: what changed is something the plan only reads
// (a record site does not write, what a gate or an owner marker rests
// on), so the step's changes alone do not show it.
func changedKeys(step string, saved, fresh *Plan) string {
	was, now := changesByKey(saved, step), changesByKey(fresh, step)
	keys := slices.Sorted(maps.Keys(was))
	for k := range now {
		if _, ok := was[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var differ []string
	for _, k := range keys {
		w, inSaved := was[k]
		n, inFresh := now[k]
		name := shown(strings.TrimPrefix(k, step+"/"))
		switch {
		case !inSaved:
			differ = append(differ, fmt.Sprintf("%s %s is planned now, not in the saved plan", name, n.Action))
		case !inFresh:
			differ = append(differ, fmt.Sprintf("%s %s is no longer planned", name, w.Action))
		case w.Action != n.Action:
			differ = append(differ, fmt.Sprintf("%s was %s, is %s now", name, w.Action, n.Action))
		case canonicalJSON(w) != canonicalJSON(n):
			differ = append(differ, fmt.Sprintf("%s %s differs", name, n.Action))
		}
	}
	if len(differ) == 0 {
		return "its planned changes are the same: what changed is live data they do not write, such as another writer's record, which the plan's checks read"
	}
	if len(differ) > keysShown {
		differ = append(differ[:keysShown], fmt.Sprintf("and %d more", len(differ)-keysShown))
	}
	return strings.Join(differ, ", ")
}

// shown is a step ID or change key as a stale plan's error quotes it.
// The saved plan is anyone's to write (a pull request may add one), so
// one read from it may hold a newline, which would start a line a
// workflow log runs as a command, or an escape sequence for the
// reader's terminal: such a one is shown as a quoted Go string, every
// byte escaped; the IDs and keys site makes (names vet checked) as
// they are.
func shown(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}

// changesByKey are step's changes in p by their key.
func changesByKey(p *Plan, step string) map[string]Change {
	out := map[string]Change{}
	for _, c := range p.Changes {
		if c.Step == step {
			out[c.Key] = c
		}
	}
	return out
}

// notesByStep joins each step's notes in the order they were made
// (Plan.Sort keeps it): the text is what the user read, so any
// difference in it counts.
func notesByStep(p *Plan) map[string]string {
	out := map[string]string{}
	for _, n := range p.Notes {
		out[n.Step] += n.Text + "\n"
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

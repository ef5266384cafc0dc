// Package plan holds what site would change: changes with their impact
// and the gates that guard them, and the text, Markdown and JSON forms a
// user reads.
//
// A Plan is built by observing live systems; it carries no state between
// runs except an optional saved copy whose fingerprints let apply refuse
// when what it observed has changed since.
//
// Plan.WriteText renders a plan for people; Plan.WriteMarkdown renders it
// for a pull request comment; Plan.WriteJSON writes the
// versioned JSON form, whose schema is documented on WriteJSON, and
// ReadJSON reads it back. CheckFresh compares a saved plan with a fresh
// one and says, per step, why the saved one is stale (StaleReason).
package plan

import (
	"sort"

	"github.com/site-tools/site/compiler/hint"
)

// FormatVersion is the version of the JSON plan schema. Bump it on any
// change a reader of the JSON could notice.
const FormatVersion = 2

// Phase groups steps by the kind of system they converge.
type Phase string

// Phases, in the order a cold start needs them.
const (
	PhaseSecrets Phase = "secrets"
	PhaseNetwork Phase = "network"
	// PhaseStorage holds the storage pools site.cue declares: a VM's
	// volumes need their pool first.
	PhaseStorage Phase = "storage"
	PhaseVM      Phase = "vm"
	PhaseDNS     Phase = "dns"
)

// Phases lists every phase in order.
var Phases = []Phase{PhaseSecrets, PhaseNetwork, PhaseStorage, PhaseVM, PhaseDNS}

// Action is what a change does to a resource.
type Action string

// Actions.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
	// ActionAdopt marks identical foreign data as ours without changing
	// what it serves.
	ActionAdopt Action = "adopt"
)

// Impact says how disruptive a change is.
type Impact string

// Impact classes, least disruptive first.
const (
	ImpactNone      Impact = "none"      // no effect on service
	ImpactLive      Impact = "live"      // applied live, no disruption
	ImpactNextBoot  Impact = "next-boot" // persistent config only; pending until next shutdown
	ImpactRestart   Impact = "restart"   // a guest stops: outage
	ImpactDestroy   Impact = "destroy"   // data gone
	ImpactOverwrite Impact = "overwrite" // foreign data replaced
	// ImpactRefused is a change the spec asks for that site will not
	// make yet (a network in use that the spec drops): apply does
	// nothing for it and reports it refused; the reason says why and
	// what frees it. It is not pending on a boot.
	ImpactRefused Impact = "refused"
)

// Gate names a change that needs an explicit acknowledgement (--ack).
type Gate string

// The gate catalogue. Names are stable: users write them in scripts.
const (
	GateDNSOverwrite  Gate = "GATE-DNS-OVERWRITE"
	GateDNSDeleteMany Gate = "GATE-DNS-DELETE-MANY"
	// GateDNSUpdateMany guards rewriting more of a zone's records of
	// ours at once than --update-threshold allows.
	GateDNSUpdateMany Gate = "GATE-DNS-UPDATE-MANY"
	GateVMRestart     Gate = "GATE-VM-RESTART"
	GateVMStop        Gate = "GATE-VM-STOP"
	GateVMDestroy     Gate = "GATE-VM-DESTROY"
	// GateVMDiskResize guards growing a VM's disk volume (the guest must
	// grow its file system; site never shrinks a volume).
	GateVMDiskResize Gate = "GATE-VM-DISK-RESIZE"
	// GateVMDiskRebase guards recreating a disk whose base image the
	// spec changed: the disk is deleted and made again from the new
	// base, so everything the guest wrote to it is lost.
	GateVMDiskRebase      Gate = "GATE-VM-DISK-REBASE"
	GateNetDestroy        Gate = "GATE-NET-DESTROY"
	GateSecretUnreachable Gate = "GATE-SECRET-UNREACHABLE"
	// GateDNSDisown guards site disown: removing site's owner markers
	// from a zone, after which no tenant updates or deletes those records
	// and the next apply of their spec adopts or overwrites them again.
	GateDNSDisown Gate = "GATE-DNS-DISOWN"
	// GateLockBreak guards site unlock: removing a tenant's apply lock,
	// which lets another apply run beside the holder if it still lives.
	GateLockBreak Gate = "GATE-LOCK-BREAK"
)

// Change is one difference between a wanted and a live resource.
type Change struct {
	Key    string `json:"key"` // backend/scope/name, e.g. dns/example.org./www.example.org./A
	Step   string `json:"step"`
	Phase  Phase  `json:"phase"`
	Tenant string `json:"tenant,omitempty"`
	Action Action `json:"action"`
	Impact Impact `json:"impact"`
	Gates  []Gate `json:"gates,omitempty"`
	// Reason explains the change in words, e.g. "foreign A record owned by
	// nobody" or "pending since an earlier define".
	Reason string `json:"reason,omitempty"`
	// Before and After are the compared attributes; a nil map is "absent".
	Before map[string]any `json:"before,omitempty"`
	After  map[string]any `json:"after,omitempty"`
}

// Blocked is a step that could not be planned: its scope was not fully
// observed, a secret it needs is unreachable, or its driver observed it
// and refuses it (a volume another domain has attached). A blocked step
// plans no deletes (not knowing is not wanting).
type Blocked struct {
	Step   string `json:"step"`
	Phase  Phase  `json:"phase"`
	Tenant string `json:"tenant,omitempty"`
	// Reason says why, its advice included; Hint is that advice typed
	// (nil when the error gave none).
	Reason string     `json:"reason"`
	Hint   *hint.JSON `json:"hint,omitempty"`
	// Gate, when set, lets the user defer this step and go on with the
	// rest of the graph.
	Gate Gate `json:"gate,omitempty"`
	// Skipped is true when the step was not tried because a step it
	// depends on is blocked.
	Skipped bool `json:"skipped,omitempty"`
}

// Plan is the result of observing every step in scope.
type Plan struct {
	FormatVersion int `json:"format_version"`
	// Summary is the plan counted (Summarize), for readers of the JSON
	// form: WriteJSON fills it in, ReadJSON drops it (it is derived,
	// never trusted from a file); nil elsewhere.
	Summary *Summary `json:"summary,omitempty"`
	Only    []Phase  `json:"only,omitempty"`
	Targets []string `json:"targets,omitempty"` // --target patterns, sorted
	// Prerequisites are the steps outside --only and --target that the
	// scope converges because a chosen step needs them (a VM's network),
	// in step order.
	Prerequisites []string `json:"prerequisites,omitempty"`
	// Spec and Options make a saved plan self-contained: apply --plan
	// reads the same files (refusing when one changed) with the same
	// options. Set by site diff; nil in a plan nobody saves.
	Spec    *Spec     `json:"spec,omitempty"`
	Options *Options  `json:"options,omitempty"`
	Changes []Change  `json:"changes"`
	Blocked []Blocked `json:"blocked,omitempty"`
	// Notes are what a person must know beside the changes, per step:
	// the DS a signed zone's parent must publish. They change nothing.
	Notes []Note `json:"notes,omitempty"`
	// Problems are what observing found wrong that no change of this
	// plan fixes (an authoritative server answering other than the
	// spec wants and the API holds), per step; diff and apply fail on
	// them.
	Problems []Note `json:"problems,omitempty"`
	// Fingerprints map each observed step to a hash of what was seen, so
	// a saved plan can be checked for staleness before it is applied.
	Fingerprints map[string]string `json:"fingerprints"`
}

// Note is one line of information about a step, shown under it.
type Note struct {
	Step   string `json:"step"`
	Tenant string `json:"tenant,omitempty"`
	Text   string `json:"text"`
}

// New returns an empty plan.
func New() *Plan {
	return &Plan{FormatVersion: FormatVersion, Changes: []Change{}, Fingerprints: map[string]string{}}
}

// HasChanges reports whether applying the plan would change anything.
func (p *Plan) HasChanges() bool { return len(p.Changes) > 0 }

// Gates returns every gate the plan needs, sorted, with the changes behind
// each (blocked steps that offer a gate count too).
func (p *Plan) Gates() map[Gate][]string {
	out := map[Gate][]string{}
	for _, c := range p.Changes {
		for _, g := range c.Gates {
			out[g] = append(out[g], c.Key)
		}
	}
	for _, b := range p.Blocked {
		if b.Gate != "" && !b.Skipped {
			out[b.Gate] = append(out[b.Gate], b.Step)
		}
	}
	return out
}

// Missing returns the gates the plan needs that acked does not hold, sorted.
func (p *Plan) Missing(acked map[Gate]bool) []Gate {
	var out []Gate
	for g := range p.Gates() {
		if !acked[g] {
			out = append(out, g)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Unobserved returns the blocked steps that no gate in acked defers, in
// plan order: while there are any, the plan is incomplete and applying
// it would change what could not be seen. A blocked step whose gate is
// acknowledged is deferred instead (apply leaves it and its dependents).
func (p *Plan) Unobserved(acked map[Gate]bool) []Blocked {
	var out []Blocked
	for _, b := range p.Blocked {
		if b.Gate == "" || !acked[b.Gate] {
			out = append(out, b)
		}
	}
	return out
}

// stepNotes returns the notes of each step, and the steps that have
// notes but no change, in plan order: they are shown after the steps
// that change.
func (p *Plan) stepNotes() (by map[string][]string, alone []Note) {
	by = map[string][]string{}
	changed := map[string]bool{}
	for _, c := range p.Changes {
		changed[c.Step] = true
	}
	for _, n := range p.Notes {
		if len(by[n.Step]) == 0 && !changed[n.Step] {
			alone = append(alone, n)
		}
		by[n.Step] = append(by[n.Step], n.Text)
	}
	return by, alone
}

// Sort orders changes by phase, then key, so output is stable.
func (p *Plan) Sort() {
	rank := map[Phase]int{}
	for i, ph := range Phases {
		rank[ph] = i
	}
	sort.SliceStable(p.Changes, func(i, j int) bool {
		a, b := p.Changes[i], p.Changes[j]
		if rank[a.Phase] != rank[b.Phase] {
			return rank[a.Phase] < rank[b.Phase]
		}
		return a.Key < b.Key
	})
	sort.SliceStable(p.Blocked, func(i, j int) bool { return p.Blocked[i].Step < p.Blocked[j].Step })
	sort.SliceStable(p.Notes, func(i, j int) bool { return p.Notes[i].Step < p.Notes[j].Step })
	sort.SliceStable(p.Problems, func(i, j int) bool { return p.Problems[i].Step < p.Problems[j].Step })
}

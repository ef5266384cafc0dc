package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the plan in its versioned JSON form, the one
// `site diff --format json` prints and `site diff --out` saves.
//
// # Schema (format_version 2)
//
// A JSON object with these members; a reader must check format_version
// first and refuse a version it does not know.
//
//	format_version  integer, 2. Bumped on any change a reader could notice
//	                (2 added spec and options; 1 is refused).
//	summary         object, the plan counted as the text form's last line
//	                ("Plan: 2 to create, ...") counts it; added within
//	                version 2, so a plan saved before has none. site
//	                computes it from the rest and ignores it when it reads
//	                a plan. Members (all but acknowledged always present):
//	  create, update, delete, adopt  integers, the changes of each action
//	                apply makes (those with impact "refused" left out).
//	  refused       integer, the changes with impact "refused".
//	  gates         array of the gates the plan needs, from its changes
//	                and its blocked steps, sorted; empty when none.
//	  acknowledged  array of those gates that options.acks holds (so
//	                defer a step), sorted; absent when none.
//	  not_planned   integer, the blocked steps no acknowledged gate
//	                defers: while above 0 the plan is incomplete.
//	  deferred      integer, the blocked steps an acknowledged gate defers.
//	only            array of phases ("secrets", "network", "storage", "vm", "dns") the
//	                plan was scoped to with --only; absent when unscoped.
//	targets         array of the --target patterns (step IDs or globs, sorted)
//	                the plan was scoped to; absent when untargeted.
//	prerequisites   array of step IDs outside --only and --target that the
//	                scope converges because a chosen step needs them (a
//	                VM's networks), in step order; absent when none. Added
//	                within version 2: a reader that ignores it loses only
//	                the listing, not a change.
//	spec            object, what the plan was computed from (site diff
//	                always writes it; site apply --plan needs it):
//	  paths         array of the PATH arguments as given, relative to the
//	                directory site diff ran in (the default ./tenants/...
//	                when none were given); apply --plan reads these.
//	  files         object mapping every file the paths named to
//	                "sha256:<hex>" of its content; apply --plan refuses
//	                the plan, naming the file, when one changed, is gone,
//	                or a new one is named.
//	options         object, the flags that shaped the plan, which apply
//	                --plan takes from here:
//	  restart       array of --restart TENANT/VM names, sorted; absent
//	                when none.
//	  delete_threshold  integer, --delete-threshold in percent.
//	  acks          array of the --ack gates that deferred a step shown in
//	                the plan (GATE-SECRET-UNREACHABLE), sorted; absent
//	                when none. Other gates are acknowledged at apply.
//	changes         array, always present (empty when converged), sorted by
//	                phase then key. Each change:
//	  key           string, the resource key backend/scope/name, e.g.
//	                "dns/example.org./www.example.org./A".
//	  step          string, the ID of the step that makes the change, e.g.
//	                "dns/example.org." or "vm/qemu:///system/keys".
//	  phase         string, one of the phases above.
//	  tenant        string, the tenant that wants it; absent if none.
//	  action        "create", "update", "delete" or "adopt" (mark identical
//	                foreign data as ours without changing what it serves).
//	  impact        "none", "live", "next-boot", "restart", "destroy",
//	                "overwrite" or "refused" (see the Impact constants).
//	                "refused" was added within version 2: a change site
//	                will not make yet, which apply leaves alone.
//	  gates         array of gate names the change needs acknowledged
//	                (e.g. "GATE-DNS-OVERWRITE"); absent if none.
//	  reason        string, why, in words; absent if obvious.
//	  before, after objects of the compared attributes (for DNS: "ttl"
//	                number, "values" array of strings in presentation
//	                form); absent means the resource is absent on that side,
//	                save for a value site learns during apply. A record
//	                waiting for a DHCP lease's address has an after of
//	                what is known ("ttl", "lease" saying whose lease, no
//	                "values"); as an update, its before is the live data
//	                it replaces (added within version 2: such an update
//	                had no before). The DS of a child signed in the same
//	                apply has neither.
//	blocked         array of steps that plan nothing: not observed, or
//	                observed and refused by their backend (a volume
//	                another domain has attached); absent when every step
//	                was planned. Text and Markdown list them under "Not
//	                planned". Each:
//	  step, phase, tenant  as in changes.
//	  reason        string, what went wrong or why site refuses.
//	  gate          string, a gate that, acknowledged, defers the step and
//	                its dependents; absent if the step cannot be deferred.
//	  skipped       true when the step was not tried because a step it
//	                depends on is blocked.
//	notes           array of lines a person must know beside the changes,
//	                sorted by step, e.g. the DS a signed zone's parent must
//	                publish; absent when none. They change nothing. Each:
//	  step, tenant  as in changes.
//	  text          string, the note.
//	                Added within version 2: a reader that ignores it loses
//	                only the notes, not a change.
//	fingerprints    object mapping each observed step ID to an opaque hash of
//	                what was observed; `site apply --plan` refuses the plan
//	                when a fresh observation hashes differently.
//	apply           object, only in what `site apply --format json`
//	                prints (added within version 2; never in a saved
//	                plan, and ReadJSON refuses a file that has it): what
//	                the apply did. Its summary counts the plan with the
//	                run's --ack gates as acknowledged. Members:
//	  result        "converged" (nothing to do), "applied" (every step
//	                converged or was deferred), "failed", "interrupted",
//	                "gated" (a gate not acknowledged), "not_planned" (a
//	                step could not be planned), "declined" (the question
//	                on a terminal was not answered yes) or "error" (apply
//	                stopped before its report); the last four changed
//	                nothing.
//	  error         string, the message site printed on stderr; absent
//	                when result is "converged" or "applied".
//	  steps         array, one outcome per step (empty when converged):
//	    step, phase, tenant  as in changes.
//	    outcome     "applied", "unchanged", "pending" (made before, waits
//	                for a restart), "partial", "failed", "skipped",
//	                "deferred", or "blocked" (not started: the run
//	                changed nothing).
//	    changes     integer, the step's planned changes.
//	    error       string, why it failed, was skipped, deferred or
//	                blocked; absent otherwise.
//	    problems    array of what re-observing after the apply still
//	                found (the step did not converge); absent when none.
//	    notes       array of lines to know; absent when none.
//	    refused     array of the keys of changes apply did not make
//	                (impact "refused"); absent when none.
//	                Text from servers in error, problems and notes has
//	                control and format characters as \u escapes.
//
// Credentials never appear in a plan.
func (p *Plan) WriteJSON(w io.Writer) error {
	var acked map[Gate]bool // what deferred a step when the plan was made
	if p.Options != nil {
		acked = map[Gate]bool{}
		for _, g := range p.Options.Acks {
			acked[g] = true
		}
	}
	return p.writeJSON(w, acked, nil)
}

// WriteAppliedJSON writes what site apply --format json prints: the
// plan as WriteJSON writes it, its summary counted with the gates
// acked holds (the run's --ack), and an "apply" member saying what the
// apply did (see the schema on WriteJSON). Characters a terminal acts
// on or hides are written as \u escapes, in error text above all.
func (p *Plan) WriteAppliedJSON(w io.Writer, acked map[Gate]bool, a *Applied) error {
	var b bytes.Buffer
	if err := p.writeJSON(&b, acked, a); err != nil {
		return err
	}
	_, err := io.WriteString(w, escapeHidden(b.String()))
	return err
}

func (p *Plan) writeJSON(w io.Writer, acked map[Gate]bool, a *Applied) error {
	cp := *p
	cp.FormatVersion = FormatVersion
	sum := p.Summarize(acked)
	cp.Summary = &sum
	if cp.Changes == nil {
		cp.Changes = []Change{}
	}
	if cp.Fingerprints == nil {
		cp.Fingerprints = map[string]string{}
	}
	if a != nil && a.Steps == nil {
		a.Steps = []Outcome{}
	}
	// The plan's members, then "apply": encoding/json promotes the
	// fields of an embedded struct.
	doc := struct {
		*Plan
		Apply *Applied `json:"apply,omitempty"`
	}{&cp, a}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("writing the plan as JSON: %w", err)
	}
	return nil
}

// ReadJSON reads a plan that WriteJSON wrote, refusing anything that is
// not a plan of this FormatVersion.
func ReadJSON(r io.Reader) (*Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the plan: %w", err)
	}
	var probe struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("the plan is not valid JSON (%v): save one with site diff --out plan.json", err)
	}
	switch {
	case probe.FormatVersion == nil:
		return nil, fmt.Errorf("the file is not a site plan: it has no format_version; save one with site diff --out plan.json")
	case *probe.FormatVersion != FormatVersion:
		return nil, fmt.Errorf("the plan has format_version %d but this site reads only %d: save it again with this site's diff --out",
			*probe.FormatVersion, FormatVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	p := &Plan{}
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("the plan does not match format_version %d (%v): save it again with site diff --out", FormatVersion, err)
	}
	p.Summary = nil // derived: counted again from the plan when needed
	if p.Changes == nil {
		p.Changes = []Change{}
	}
	if p.Fingerprints == nil {
		p.Fingerprints = map[string]string{}
	}
	return p, nil
}

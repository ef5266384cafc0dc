package plan

import (
	"fmt"
	"io"
	"strings"
)

// TextOptions control the text form of a plan.
type TextOptions struct {
	// Color adds ANSI colours. Set it only for a terminal with NO_COLOR
	// unset.
	Color bool
	// Acked are the gates the user acknowledged: a blocked step whose
	// gate is among them is shown as deferred, not blocked.
	Acked map[Gate]bool
	// Quiet keeps only the changes and the problems (site diff and
	// apply --quiet): no notes, no prerequisites, and nothing at all
	// for a plan without changes or steps not planned.
	Quiet bool
}

// Symbols for each action, as Terraform users expect them; adopt has no
// Terraform equivalent and gets "=" because what is served stays equal.
var symbols = map[Action]string{
	ActionCreate: "+",
	ActionUpdate: "~",
	ActionDelete: "-",
	ActionAdopt:  "=",
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
)

var actionColors = map[Action]string{
	ActionCreate: ansiGreen,
	ActionUpdate: ansiYellow,
	ActionDelete: ansiRed,
	ActionAdopt:  ansiCyan,
}

// WriteText renders the plan for a person, in the spirit of Terraform's
// plan output: the prerequisites a scope took in (Plan.Prerequisites),
// a legend, the changes grouped by step, each with its
// symbol, key, [impact], the gates it needs, its reason and its
// attributes (before → after for an update), then the steps that could
// not be observed, then one summary line:
//
//	Plan: 3 to create, 1 to update, 0 to delete, 1 to adopt; gates needed: GATE-DNS-OVERWRITE.
//
// A converged, unscoped plan with every step observed is exactly
// "No changes. The live systems match the spec."; a scoped one says
// that only its scope was looked at (noChanges).
func (p *Plan) WriteText(w io.Writer, opts TextOptions) error {
	if opts.Quiet {
		if len(p.Changes) == 0 && len(p.Blocked) == 0 {
			return nil
		}
		q := *p
		q.Notes, q.Prerequisites = nil, nil
		p = &q
	}
	var b strings.Builder
	paint := func(code, s string) string {
		if !opts.Color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	if len(p.Prerequisites) > 0 {
		// A scope says everything it converges, also what it was not asked for.
		b.WriteString("Also in scope, as prerequisites of the chosen steps:\n")
		for _, id := range p.Prerequisites {
			b.WriteString("  " + id + "\n")
		}
		b.WriteString("\n")
	}
	notes, alone := p.stepNotes()
	head := func(step, tenant string) {
		h := "# " + step
		if tenant != "" {
			h += " (tenant " + tenant + ")"
		}
		b.WriteString(paint(ansiBold, h) + "\n")
	}
	writeNotes := func(step string) {
		for _, n := range notes[step] {
			fmt.Fprintf(&b, "  %s %s\n", paint(ansiCyan, "note:"), indentRest(n, "      "))
		}
	}
	if len(p.Changes) == 0 && len(p.Blocked) == 0 && len(p.Problems) == 0 {
		for _, n := range alone {
			head(n.Step, n.Tenant)
			writeNotes(n.Step)
			b.WriteString("\n")
		}
		b.WriteString(p.noChanges() + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(p.Changes) > 0 {
		fmt.Fprintf(&b, "site will make these changes (%s create, %s update, %s delete, %s adopt):\n",
			paint(ansiGreen, "+"), paint(ansiYellow, "~"), paint(ansiRed, "-"), paint(ansiCyan, "="))
	}
	for _, group := range groupByStep(p.Changes) {
		c0 := group[0]
		b.WriteString("\n")
		head(c0.Step, c0.Tenant)
		writeStep(&b, group, paint)
		writeNotes(c0.Step)
	}
	for _, n := range alone {
		gap(&b)
		head(n.Step, n.Tenant)
		writeNotes(n.Step)
	}
	if len(p.Problems) > 0 {
		gap(&b)
		b.WriteString(paint(ansiRed, problemsHeading+":") + "\n")
		for _, pr := range p.Problems {
			fmt.Fprintf(&b, "  %s %s: %s\n", paint(ansiRed, "!"), pr.Step, indentRest(pr.Text, "      "))
		}
	}
	p.writeBlockedText(&b, opts.Acked, paint)
	gap(&b)
	b.WriteString(p.Summarize(opts.Acked).String() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeBlockedText lists the steps not planned, then those deferred.
func (p *Plan) writeBlockedText(b *strings.Builder, acked map[Gate]bool, paint func(code, s string) string) {
	blocked, deferred := p.splitBlocked(acked)
	if len(blocked) > 0 {
		gap(b)
		b.WriteString(paint(ansiRed, "Not planned (not observed, or refused) for these steps:") + "\n")
		for _, bl := range blocked {
			fmt.Fprintf(b, "  %s %s: %s\n", paint(ansiRed, "!"), bl.Step, indentRest(bl.Reason, "      "))
			if bl.Gate != "" && !bl.Skipped && !strings.Contains(bl.Reason, "--ack "+string(bl.Gate)) {
				fmt.Fprintf(b, "      acknowledge %s to defer it and its dependents: --ack %s\n", bl.Gate, bl.Gate)
			}
		}
	}
	if len(deferred) > 0 {
		gap(b)
		b.WriteString(paint(ansiYellow, "Deferred by an acknowledged gate:") + "\n")
		for _, bl := range deferred {
			fmt.Fprintf(b, "  %s %s: %s\n", paint(ansiYellow, ">"), bl.Step, indentRest(bl.Reason, "      "))
		}
	}
}

// indentRest indents every line of s but the first, so that a
// multi-line reason (a secret store lists each address it tried) stays
// inside its list item.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// gap separates sections with one blank line.
func gap(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
}

// groupByStep splits sorted changes into runs of one step each, in the
// order the steps first appear.
func groupByStep(cs []Change) [][]Change {
	var order []string
	by := map[string][]Change{}
	for _, c := range cs {
		if _, ok := by[c.Step]; !ok {
			order = append(order, c.Step)
		}
		by[c.Step] = append(by[c.Step], c)
	}
	out := make([][]Change, 0, len(order))
	for _, s := range order {
		out = append(out, by[s])
	}
	return out
}

// writeChange writes c as its symbol, its key under the step's heading
// (displayKey), [impact] and the gates it needs, then its reason unless
// withReason is false (a reason it shares, said above), then its
// attributes.
func writeChange(b *strings.Builder, c Change, withReason bool, paint func(code, s string) string) {
	sym, ok := symbols[c.Action]
	if !ok {
		sym = "?"
	}
	fmt.Fprintf(b, "  %s %s  [%s]", paint(actionColors[c.Action], sym), displayKey(c), paint(impactColor(c.Impact), label(c)))
	if len(c.Gates) > 0 {
		fmt.Fprintf(b, "  needs %s", paint(ansiBold, gateList(c.Gates)))
	}
	b.WriteString("\n")
	if c.Reason != "" && withReason {
		fmt.Fprintf(b, "      %s\n", c.Reason)
	}
	for _, line := range attributeLines(c) {
		fmt.Fprintf(b, "      %s\n", line)
	}
}

// label is the word in brackets after a change's key: its impact, except
// that a new resource that disturbs nothing (a VM, a network, a volume)
// reads [create], as a new user expects, rather than [none], which reads
// as "nothing happens". The JSON keeps the impact "none".
func label(c Change) string {
	if c.Action == ActionCreate && c.Impact == ImpactNone {
		return string(ActionCreate)
	}
	return string(c.Impact)
}

func impactColor(i Impact) string {
	switch i {
	case ImpactRestart, ImpactDestroy, ImpactOverwrite:
		return ansiRed
	case ImpactNextBoot, ImpactRefused:
		return ansiYellow
	}
	return ""
}

// noChanges is the line of a plan without changes: the whole spec's, or
// only what --only and --target chose, since what they left out was not
// observed and may well differ; or that --only chose nothing at all
// (--only vm for specs without VMs), which checked nothing.
func (p *Plan) noChanges() string {
	if len(p.Only) == 0 && len(p.Targets) == 0 {
		return "No changes. The live systems match the spec."
	}
	if len(p.Only) > 0 && len(p.Fingerprints) == 0 && len(p.Blocked) == 0 {
		phases := make([]string, len(p.Only))
		for i, ph := range p.Only {
			phases[i] = string(ph)
		}
		return "No changes: --only " + strings.Join(phases, ",") + " keeps no step of these specs, so nothing was looked at."
	}
	var scope []string
	if len(p.Only) > 0 {
		scope = append(scope, "--only")
	}
	if len(p.Targets) > 0 {
		scope = append(scope, "--target")
	}
	return "No changes. The steps " + strings.Join(scope, " and ") + " chose match the spec; the rest was not looked at."
}

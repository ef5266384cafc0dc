package plan

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// impactOrder ranks impacts least disruptive first, for the rows of the
// Markdown summary table.
var impactOrder = []Impact{ImpactNone, ImpactLive, ImpactNextBoot, ImpactRestart, ImpactDestroy, ImpactOverwrite, ImpactRefused}

// markdownActions are the summary table's columns.
var markdownActions = []Action{ActionCreate, ActionUpdate, ActionDelete, ActionAdopt}

// WriteMarkdown renders the plan as GitHub-flavoured Markdown for a pull
// request comment: a heading, a table counting the changes by impact
// (rows) and action (columns), the gates apply will need with what each
// allows, one collapsible <details> section per step (a zone, a VM, a
// network) holding its changes in the text form, then the steps that
// were not planned and the summary line WriteText ends with.
//
// A converged plan with every step observed is the heading and
// "No changes. The live systems match the spec.".
//
// acked, as TextOptions.Acked, shows a blocked step whose gate is in it
// as deferred.
func (p *Plan) WriteMarkdown(w io.Writer, acked map[Gate]bool) error {
	var b strings.Builder
	b.WriteString("### site diff\n\n")
	notes, alone := p.stepNotes()
	writeNotes := func(step string) {
		if len(notes[step]) == 0 {
			return
		}
		for _, n := range notes[step] {
			fmt.Fprintf(&b, "- note: %s\n", html.EscapeString(strings.ReplaceAll(n, "\n", " ")))
		}
		b.WriteString("\n")
	}
	aloneNotes := func() {
		for _, n := range alone {
			fmt.Fprintf(&b, "<code>%s</code>", html.EscapeString(n.Step))
			if n.Tenant != "" {
				b.WriteString(" (tenant " + html.EscapeString(n.Tenant) + ")")
			}
			b.WriteString(":\n\n")
			writeNotes(n.Step)
		}
	}
	if len(p.Changes) == 0 && len(p.Blocked) == 0 && len(p.Problems) == 0 {
		aloneNotes()
		b.WriteString(p.noChanges() + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(p.Changes) > 0 {
		writeMarkdownTable(&b, p.Changes)
	}
	if gates := p.Gates(); len(gates) > 0 {
		names := make([]Gate, 0, len(gates))
		for g := range gates {
			names = append(names, g)
		}
		sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
		b.WriteString("**Gates needed** (site apply refuses to start without them):\n\n")
		for _, g := range names {
			state := "`--ack " + string(g) + "`"
			if acked[g] {
				state = "acknowledged"
			}
			fmt.Fprintf(&b, "- `%s`: %s (%s; %s)\n", g, g.Meaning(), state, p.gateUsers(g))
		}
		b.WriteString("\n")
	}
	for _, group := range groupByStep(p.Changes) {
		c0 := group[0]
		summary := "<code>" + html.EscapeString(c0.Step) + "</code>"
		if c0.Tenant != "" {
			summary += " (tenant " + html.EscapeString(c0.Tenant) + ")"
		}
		summary += ": " + html.EscapeString(actionCounts(group))
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", summary)
		var body strings.Builder
		writeStep(&body, group, noPaint)
		// GitHub colours a diff block's lines by their first column.
		writeFenced(&b, "diff", strings.ReplaceAll("\n"+body.String(), "\n  ", "\n")[1:])
		b.WriteString("\n")
		writeNotes(c0.Step)
		b.WriteString("</details>\n\n")
	}
	aloneNotes()
	problems := make([]Blocked, len(p.Problems))
	for i, pr := range p.Problems {
		problems[i] = Blocked{Step: pr.Step, Tenant: pr.Tenant, Reason: pr.Text}
	}
	writeBlockedMarkdown(&b, "**"+problemsHeading+"**:", "!", problems)
	blocked, deferred := p.splitBlocked(acked)
	writeBlockedMarkdown(&b, "**Not planned** (not observed, or refused) for these steps:", "!", blocked)
	writeBlockedMarkdown(&b, "**Deferred** by an acknowledged gate:", ">", deferred)
	b.WriteString(p.Summarize(acked).String() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdownFailure renders, for the same pull request comment, why
// site diff made no plan at all (specs that do not load, an observation
// interrupted): the heading WriteMarkdown writes and the error as site
// printed it, in a code block no value of a spec can end early.
// Without it, the comment of a diff that stopped would be empty.
func WriteMarkdownFailure(w io.Writer, err error) error {
	var b strings.Builder
	b.WriteString("### site diff\n\n**No plan**: site diff stopped before it could make one.\n\n")
	writeFenced(&b, "text", strings.TrimRight(err.Error(), "\n")+"\n")
	_, werr := io.WriteString(w, b.String())
	return werr
}

// gateUsers says how many changes and blocked steps need g, e.g.
// "1 change" or "2 steps not observed".
func (p *Plan) gateUsers(g Gate) string {
	changes, steps := 0, 0
	for _, c := range p.Changes {
		for _, cg := range c.Gates {
			if cg == g {
				changes++
			}
		}
	}
	for _, b := range p.Blocked {
		if b.Gate == g && !b.Skipped {
			steps++
		}
	}
	var parts []string
	if changes > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", changes, words.Plural(changes, "change", "changes")))
	}
	if steps > 0 {
		parts = append(parts, fmt.Sprintf("%d %s not observed", steps, words.Plural(steps, "step", "steps")))
	}
	return strings.Join(parts, ", ")
}

// writeMarkdownTable counts changes by impact and action; impacts no
// change has are left out, and a last row totals each action.
func writeMarkdownTable(b *strings.Builder, cs []Change) {
	n := map[Impact]map[Action]int{}
	total := map[Action]int{}
	for _, c := range cs {
		if n[c.Impact] == nil {
			n[c.Impact] = map[Action]int{}
		}
		n[c.Impact][c.Action]++
		total[c.Action]++
	}
	rows := append([]Impact(nil), impactOrder...)
	for i := range n {
		known := false
		for _, k := range impactOrder {
			known = known || k == i
		}
		if !known {
			rows = append(rows, i)
		}
	}
	b.WriteString("| Impact | Create | Update | Delete | Adopt |\n|---|---:|---:|---:|---:|\n")
	for _, i := range rows {
		if n[i] == nil {
			continue
		}
		fmt.Fprintf(b, "| %s |", i)
		for _, a := range markdownActions {
			fmt.Fprintf(b, " %d |", n[i][a])
		}
		b.WriteString("\n")
	}
	b.WriteString("| **total** |")
	for _, a := range markdownActions {
		fmt.Fprintf(b, " **%d** |", total[a])
	}
	b.WriteString("\n\n")
}

// actionCounts says what one step does, e.g. "1 create, 2 updates".
func actionCounts(cs []Change) string {
	n := map[Action]int{}
	for _, c := range cs {
		n[c.Action]++
	}
	var parts []string
	for _, a := range markdownActions {
		if n[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[a], words.Plural(n[a], string(a), string(a)+"s")))
		}
	}
	return strings.Join(parts, ", ")
}

// writeBlockedMarkdown writes steps under title, each marked with mark
// and its reason, in a fenced block; nothing when there are none.
func writeBlockedMarkdown(b *strings.Builder, title, mark string, steps []Blocked) {
	if len(steps) == 0 {
		return
	}
	b.WriteString(title + "\n\n")
	var body strings.Builder
	for _, bl := range steps {
		fmt.Fprintf(&body, "%s %s: %s\n", mark, bl.Step, indentRest(bl.Reason, "    "))
	}
	writeFenced(b, "text", body.String())
	b.WriteString("\n")
}

// writeFenced writes body as a fenced code block whose fence is longer
// than any run of backticks in it, so no value can end the block early.
func writeFenced(b *strings.Builder, lang, body string) {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	b.WriteString(fence + lang + "\n" + body + fence + "\n")
}

func noPaint(_, s string) string { return s }

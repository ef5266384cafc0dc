package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// TextOptions control the text form of a plan.
type TextOptions struct {
	// Color adds ANSI colours. Set it only for a terminal with NO_COLOR
	// unset.
	Color bool
	// Acked are the gates the user acknowledged: a blocked step whose
	// gate is among them is shown as deferred, not blocked.
	Acked map[Gate]bool
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
		for _, c := range group {
			writeChange(&b, c, paint)
		}
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
	blocked, deferred := p.splitBlocked(opts.Acked)
	if len(blocked) > 0 {
		gap(&b)
		b.WriteString(paint(ansiRed, "Not planned (not observed, or refused) for these steps:") + "\n")
		for _, bl := range blocked {
			fmt.Fprintf(&b, "  %s %s: %s\n", paint(ansiRed, "!"), bl.Step, indentRest(bl.Reason, "      "))
			if bl.Gate != "" && !bl.Skipped && !strings.Contains(bl.Reason, "--ack "+string(bl.Gate)) {
				fmt.Fprintf(&b, "      acknowledge %s to defer it and its dependents: --ack %s\n", bl.Gate, bl.Gate)
			}
		}
	}
	if len(deferred) > 0 {
		gap(&b)
		b.WriteString(paint(ansiYellow, "Deferred by an acknowledged gate:") + "\n")
		for _, bl := range deferred {
			fmt.Fprintf(&b, "  %s %s: %s\n", paint(ansiYellow, ">"), bl.Step, indentRest(bl.Reason, "      "))
		}
	}
	gap(&b)
	b.WriteString(p.Summarize(opts.Acked).String() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// indentRest indents every line of s but the first, so that a
// multi-line reason (a secret store lists each address it tried) stays
// inside its list item.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

// Summary counts a plan: what its text and Markdown forms end with
// ("Plan: 3 to create, ...") and its JSON form's summary, so the three
// never count differently.
type Summary struct {
	// Create, Update, Delete and Adopt count the changes apply makes, by
	// action; Refused those it will not make yet (impact "refused"),
	// which the other four leave out.
	Create  int `json:"create"`
	Update  int `json:"update"`
	Delete  int `json:"delete"`
	Adopt   int `json:"adopt"`
	Refused int `json:"refused"`
	// Gates are the gates the plan needs (Plan.Gates), sorted;
	// Acknowledged those of them acked holds.
	Gates        []Gate `json:"gates"`
	Acknowledged []Gate `json:"acknowledged,omitempty"`
	// NotPlanned counts the blocked steps no acknowledged gate defers;
	// Deferred those one does.
	NotPlanned int `json:"not_planned"`
	Deferred   int `json:"deferred"`
	// Problems counts Plan.Problems.
	Problems int `json:"problems,omitempty"`
}

// problemsHeading introduces Plan.Problems in text and Markdown.
const problemsHeading = "Problems (what the live systems serve differs from the spec, and no change of this plan fixes it)"

// splitBlocked parts the blocked steps into those not planned and those
// a gate in acked defers.
func (p *Plan) splitBlocked(acked map[Gate]bool) (blocked, deferred []Blocked) {
	for _, bl := range p.Blocked {
		if bl.Gate != "" && acked[bl.Gate] {
			deferred = append(deferred, bl)
		} else {
			blocked = append(blocked, bl)
		}
	}
	return blocked, deferred
}

// Summarize counts the plan with the gates in acked acknowledged.
func (p *Plan) Summarize(acked map[Gate]bool) Summary {
	var s Summary
	for _, c := range p.Changes {
		switch {
		case c.Impact == ImpactRefused:
			s.Refused++
		case c.Action == ActionCreate:
			s.Create++
		case c.Action == ActionUpdate:
			s.Update++
		case c.Action == ActionDelete:
			s.Delete++
		case c.Action == ActionAdopt:
			s.Adopt++
		}
	}
	s.Gates = []Gate{}
	for g := range p.Gates() {
		s.Gates = append(s.Gates, g)
		if acked[g] {
			s.Acknowledged = append(s.Acknowledged, g)
		}
	}
	slices.Sort(s.Gates)
	slices.Sort(s.Acknowledged)
	blocked, deferred := p.splitBlocked(acked)
	s.NotPlanned, s.Deferred = len(blocked), len(deferred)
	s.Problems = len(p.Problems)
	return s
}

// String is the plan's last line in text and Markdown.
func (s Summary) String() string {
	line := fmt.Sprintf("Plan: %d to create, %d to update, %d to delete, %d to adopt",
		s.Create, s.Update, s.Delete, s.Adopt)
	if s.Refused > 0 {
		line += fmt.Sprintf("; %d refused (not made by apply; see why above)", s.Refused)
	}
	if len(s.Gates) > 0 {
		names := make([]string, len(s.Gates))
		for i, g := range s.Gates {
			names[i] = string(g)
			if slices.Contains(s.Acknowledged, g) {
				names[i] += " (acknowledged)"
			}
		}
		line += "; gates needed: " + strings.Join(names, ", ")
	}
	if s.NotPlanned > 0 {
		line += fmt.Sprintf("; %d %s not planned", s.NotPlanned, pluralSteps(s.NotPlanned))
	}
	if s.Deferred > 0 {
		line += fmt.Sprintf("; %d %s deferred", s.Deferred, pluralSteps(s.Deferred))
	}
	switch {
	case s.Problems == 1:
		line += "; 1 problem"
	case s.Problems > 1:
		line += fmt.Sprintf("; %d problems", s.Problems)
	}
	return line + "."
}

// gap separates sections with one blank line.
func gap(b *strings.Builder) {
	if b.Len() > 0 {
		b.WriteString("\n")
	}
}

func pluralSteps(n int) string {
	if n == 1 {
		return "step"
	}
	return "steps"
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

func writeChange(b *strings.Builder, c Change, paint func(code, s string) string) {
	sym, ok := symbols[c.Action]
	if !ok {
		sym = "?"
	}
	fmt.Fprintf(b, "  %s %s  [%s]", paint(actionColors[c.Action], sym), c.Key, paint(impactColor(c.Impact), label(c)))
	if len(c.Gates) > 0 {
		names := make([]string, len(c.Gates))
		for i, g := range c.Gates {
			names[i] = string(g)
		}
		fmt.Fprintf(b, "  needs %s", paint(ansiBold, strings.Join(names, ", ")))
	}
	b.WriteString("\n")
	if c.Reason != "" {
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

// attributeLines shows what a change compares: the new values of a
// create or adopt, the old values of a delete, and for an update only the
// attributes that differ, as before → after. Values site learns during
// apply (a DHCP lease's address: After holds "lease", where they come
// from, instead of "values") read as what they will be, in parentheses.
func attributeLines(c Change) []string {
	after := c.After
	if lease, ok := c.After["lease"]; ok && c.After["values"] == nil {
		after = maps.Clone(c.After)
		delete(after, "lease")
		after["values"] = pending(fmt.Sprintf("(address from the DHCP lease %v)", lease))
	}
	keys := map[string]bool{}
	for k := range c.Before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	type line struct{ k, v string }
	var lines []line
	width := 0
	for _, k := range names {
		before, hadBefore := c.Before[k]
		after, hasAfter := after[k]
		var v string
		switch {
		case c.Action == ActionDelete || !hasAfter:
			if c.Action != ActionDelete {
				v = render(before) + " → (none)"
			} else {
				v = render(before)
			}
		case c.Action == ActionUpdate && hadBefore:
			rb, ra := render(before), render(after)
			if rb == ra {
				continue
			}
			v = rb + " → " + ra
		case c.Action == ActionUpdate:
			v = "(none) → " + render(after)
		default:
			v = render(after)
		}
		lines = append(lines, line{k, v})
		width = max(width, len(k))
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = fmt.Sprintf("%-*s %s", width+1, l.k+":", l.v)
	}
	return out
}

// pending is a value not known until apply, shown as its words say.
type pending string

// render writes an attribute value as compact JSON, which reads well for
// strings, numbers and lists. The value goes through plain JSON values
// first, so a struct prints with sorted keys, exactly as it will when the
// plan is read back from a file.
func render(v any) string {
	if s, ok := renderPlain(v); ok {
		return s
	}
	encode := func(v any) (string, error) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		err := enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n"), err
	}
	s, err := encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var plain any
	if json.Unmarshal([]byte(s), &plain) != nil {
		return escapeFormat(s)
	}
	if s, err = encode(plain); err != nil {
		return fmt.Sprint(v)
	}
	return escapeFormat(s)
}

// escapeFormat writes the Unicode format characters JSON leaves as they
// are (a right-to-left override, a zero-width joiner) as JSON escapes,
// so the text stays the same JSON. Live record data is whoever wrote
// it's, and an override would reorder how the rest of the line reads.
func escapeFormat(s string) string {
	if !strings.ContainsFunc(s, isFormat) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isFormat(r):
			b.WriteRune(r)
		case r > 0xffff: // JSON writes it as a surrogate pair
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }

// renderPlain renders what most changes carry (a TTL, a string, a list
// of strings) as render would, without its three passes through
// encoding/json: a plan creating 10,000 records spent half of its text
// there. ok is false for any other value, and for a string that JSON
// would escape (TestRenderPlainIsRender).
func renderPlain(v any) (string, bool) {
	switch v := v.(type) {
	case pending:
		return string(v), true
	case string:
		if plainString(v) {
			return `"` + v + `"`, true
		}
	case []string:
		if v == nil {
			return "null", true
		}
		var b strings.Builder
		b.WriteByte('[')
		for i, s := range v {
			if !plainString(s) {
				return "", false
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(s)
			b.WriteByte('"')
		}
		b.WriteByte(']')
		return b.String(), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// plainString reports whether JSON writes s as it is between quotes:
// printable ASCII without a quote or a backslash.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
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

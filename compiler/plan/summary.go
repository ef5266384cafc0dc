package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

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
		line += fmt.Sprintf("; %d %s not planned", s.NotPlanned, words.Plural(s.NotPlanned, "step"))
	}
	if s.Deferred > 0 {
		line += fmt.Sprintf("; %d %s deferred", s.Deferred, words.Plural(s.Deferred, "step"))
	}
	switch {
	case s.Problems == 1:
		line += "; 1 problem"
	case s.Problems > 1:
		line += fmt.Sprintf("; %d problems", s.Problems)
	}
	return line + "."
}

// ProblemsError is the error of a plan with problems (what the live
// systems serve differs from the spec, and no change fixes it), nil
// without: an exit 0 would forget what the check after an apply found.
// json says where the problems were shown.
func (p *Plan) ProblemsError(json bool) error {
	if len(p.Problems) == 0 {
		return nil
	}
	where := `see "Problems" above`
	if json {
		where = `see "problems" in the plan`
	}
	return fmt.Errorf("%s: what the live systems serve differs from the spec where no change of the plan can fix it (%s): fix the cause each names, then run site diff again", words.Count(len(p.Problems), "problem"), where)
}

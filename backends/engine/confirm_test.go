package engine

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/plan"
)

// TestUnanswered: which destructive changes still need a yes. --yes
// answers all; on a terminal a saved plan answers all and an ack only
// the changes behind its gate (never an ungated delete); without a
// terminal only --yes answers. A harmless change is never asked about.
func TestUnanswered(t *testing.T) {
	del := plan.Change{Step: "dns/a.", Key: "old", Action: plan.ActionDelete, Impact: plan.ImpactLive}
	over := plan.Change{Step: "dns/a.", Key: "www", Action: plan.ActionUpdate, Impact: plan.ImpactOverwrite, Gates: []plan.Gate{plan.GateDNSOverwrite}}
	leftover := plan.Change{Step: "pool/x", Key: "seed", Action: plan.ActionDelete, Impact: plan.ImpactNone}
	p := plan.New()
	p.Changes = []plan.Change{del, over, leftover}
	acked := map[plan.Gate]bool{plan.GateDNSOverwrite: true}
	for _, tc := range []struct {
		name  string
		acked map[plan.Gate]bool
		a     Answers
		want  []string
	}{
		{"--yes", nil, Answers{Yes: true}, nil},
		{"terminal, saved plan", nil, Answers{SavedPlan: true, Terminal: true}, nil},
		{"terminal, ack", acked, Answers{Terminal: true}, []string{"old"}},
		{"terminal, nothing", nil, Answers{Terminal: true}, []string{"old", "www"}},
		{"no terminal, ack and saved plan", acked, Answers{SavedPlan: true}, []string{"old", "www"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Unanswered(p, tc.acked, tc.a) {
				got = append(got, c.Key)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConfirmWords: the question names each change left to answer and
// how many an ack answered; the error without a terminal names them and
// the command that adds --yes.
func TestConfirmWords(t *testing.T) {
	del := plan.Change{Step: "dns/a.", Key: "old", Action: plan.ActionDelete, Impact: plan.ImpactLive}
	over := plan.Change{Step: "dns/a.", Key: "www", Action: plan.ActionUpdate, Impact: plan.ImpactOverwrite, Gates: []plan.Gate{plan.GateDNSOverwrite}}
	p := plan.New()
	p.Changes = []plan.Change{del, over}
	var b bytes.Buffer
	WriteQuestion(&b, p, []plan.Change{del})
	want := "\n1 change in the plan above can cause an outage, delete or replace data (besides 1 change that --ack answered):\n" +
		"  delete old [live]\n" +
		"Apply these changes? Only \"yes\" goes on (site apply --yes skips this question).\nType yes: "
	if got := b.String(); got != want {
		t.Errorf("question:\n got %q\nwant %q", got, want)
	}
	err := &UnconfirmedError{Changes: []plan.Change{del, over}, Command: "site apply t.cue"}
	want = "2 changes in the plan above would delete, overwrite, restart or destroy, and stdin is not a terminal, so site cannot ask: nothing was changed:\n" +
		"  delete old [live]\n  update www [overwrite]\n" +
		"--yes says yes to these changes without asking (an --ack never does without a terminal); to apply them, run: site apply t.cue --yes"
	if got := err.Error(); got != want {
		t.Errorf("error:\n got %q\nwant %q", got, want)
	}
	if h := hint.Of(fmt.Errorf("apply: %w", err)); h != (hint.Hint{Kind: hint.ConfirmWithYes, Command: "site apply t.cue"}) {
		t.Errorf("hint %+v, want ConfirmWithYes with the command", h)
	}
}

package plan

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/hint"
)

// TestWriteAppliedJSON: apply's JSON is the plan's, with its summary
// counted with the run's acks, plus the outcome of each step; it parses
// back to what was written, hidden characters in error text included,
// and is not a plan apply --plan would take.
func TestWriteAppliedJSON(t *testing.T) {
	p := deleteManyPlan()
	acked := map[Gate]bool{GateDNSOverwrite: true}
	hostile := "HTTP 500: \x1b[2Jcleared\u202eevil\u0085next\x7f"
	applied := &Applied{Result: ResultGated, Error: "1 gate is not acknowledged, so nothing was changed",
		Hint:  hint.Hint{Kind: hint.Acknowledge, Gate: string(GateDNSDeleteMany)}.ToJSON(),
		Steps: p.NotApplied(acked, "apply stopped before changing anything")}
	applied.Steps[1].Error = hostile
	applied.Steps[1].Hint = hint.Hint{Kind: hint.RunAgain}.ToJSON()
	var b bytes.Buffer
	if err := p.WriteAppliedJSON(&b, acked, applied); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "plan_applied.json.golden"), b.Bytes())
	for _, raw := range []string{"\x1b", "\u202e", "\u0085", "\x7f"} {
		if strings.Contains(b.String(), raw) {
			t.Errorf("the JSON holds %q raw:\n%s", raw, b.String())
		}
	}

	var got struct {
		FormatVersion int      `json:"format_version"`
		Summary       Summary  `json:"summary"`
		Changes       []Change `json:"changes"`
		Apply         Applied  `json:"apply"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if got.FormatVersion != FormatVersion || len(got.Changes) != 6 {
		t.Errorf("format_version %d with %d changes, want %d with 6", got.FormatVersion, len(got.Changes), FormatVersion)
	}
	wantSum := Summary{Update: 1, Delete: 5, Gates: []Gate{GateDNSDeleteMany, GateDNSOverwrite}, Acknowledged: []Gate{GateDNSOverwrite}}
	if !reflect.DeepEqual(got.Summary, wantSum) {
		t.Errorf("summary %+v, want %+v", got.Summary, wantSum)
	}
	want := []Outcome{
		{Step: "dns/acme.example.net.", Phase: PhaseDNS, Tenant: "acme", Outcome: OutcomeBlocked, Changes: 5,
			Error: "needs GATE-DNS-DELETE-MANY acknowledged (--ack); nothing was changed"},
		{Step: "dns/shop.test.", Phase: PhaseDNS, Tenant: "shop", Outcome: OutcomeBlocked, Changes: 1, Error: hostile,
			Hint: &hint.JSON{Kind: "run_again", Text: "run site apply again to converge"}},
	}
	if got.Apply.Result != ResultGated || !reflect.DeepEqual(got.Apply.Steps, want) {
		t.Errorf("apply %+v, want result gated and steps %+v", got.Apply, want)
	}
	if _, err := ReadJSON(bytes.NewReader(b.Bytes())); err == nil {
		t.Error("ReadJSON took apply's output for a saved plan")
	}
}

// TestNotApplied: a run that changed nothing reports each step blocked,
// with the gates its own changes miss, or why the run stopped; a step
// an acknowledged gate defers is deferred; a converged run has none.
func TestNotApplied(t *testing.T) {
	got := fullPlan().NotApplied(map[Gate]bool{GateSecretUnreachable: true}, "the answer was not yes")
	byStep := map[string]Outcome{}
	for _, o := range got {
		byStep[o.Step] = o
	}
	for step, want := range map[string]Outcome{
		"vm/qemu:///system/files": {Outcome: OutcomeBlocked, Changes: 1, Error: "the answer was not yes"},
		"vm/qemu:///system/keys":  {Outcome: OutcomeBlocked, Changes: 3, Error: "needs GATE-VM-RESTART acknowledged (--ack); nothing was changed"},
		"dns/sjc.example.net.":    {Outcome: OutcomeBlocked, Changes: 4, Error: "needs GATE-DNS-OVERWRITE acknowledged (--ack); nothing was changed"},
		"dns/other.example.":      {Outcome: OutcomeBlocked, Error: "GET http://127.0.0.1:8081/api/v1/servers/localhost/zones/other.example.: connection refused"},
		"dns/lab.example.net.":    {Outcome: "deferred", Error: "not observed: it depends on secret/lab/dns/cloudflare#token, which was not planned"},
	} {
		o := byStep[step]
		if o.Outcome != want.Outcome || o.Changes != want.Changes || o.Error != want.Error {
			t.Errorf("%s: %+v, want %+v", step, o, want)
		}
	}
	if len(got) != 7 {
		t.Errorf("%d outcomes, want 7 (3 steps with changes, 4 not planned)", len(got))
	}
	if out := New().NotApplied(nil, "x"); len(out) != 0 {
		t.Errorf("a converged plan has outcomes %+v", out)
	}
}

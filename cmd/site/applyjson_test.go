package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/plan"
)

// appliedDoc is what site apply --format json prints, as a reader
// parses it.
type appliedDoc struct {
	FormatVersion int           `json:"format_version"`
	Summary       plan.Summary  `json:"summary"`
	Changes       []plan.Change `json:"changes"`
	Apply         *plan.Applied `json:"apply"`
}

// applyJSON runs site apply --format json and parses what it printed.
func applyJSON(t *testing.T, srv *pdnstest.Server, wantCode int, args ...string) appliedDoc {
	t.Helper()
	code, out, errOut := siteRun(t, srv, append([]string{"apply", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("apply exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, out, errOut)
	}
	var doc appliedDoc
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("apply --format json printed no JSON object (%v):\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("apply --format json printed more than one JSON value:\n%s", out)
	}
	if doc.FormatVersion != plan.FormatVersion || doc.Apply == nil {
		t.Fatalf("format_version %d, apply %v: want %d and an apply member\n%s", doc.FormatVersion, doc.Apply, plan.FormatVersion, out)
	}
	for _, raw := range []string{"\x1b", "\u202e"} {
		if strings.Contains(out, raw) {
			t.Errorf("apply --format json printed %q raw:\n%s", raw, out)
		}
	}
	return doc
}

// TestApplyFormatJSON: apply's JSON, parsed, says what diff's says (the
// summary, the full keys) and how each step ended: blocked by a gate
// (exit 3, nothing changed), failed with the server's error (exit 1),
// applied.
func TestApplyFormatJSON(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "json.example.test."
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 60, Records: []string{"198.51.100.7"}})
	file := tenantFile(t, srv, "json.example.test", `
			www: A: ["192.0.2.80"]`)

	gated := applyJSON(t, srv, exitGated, file)
	if gated.Apply.Result != plan.ResultGated || gated.Summary.Update != 1 ||
		!slices.Equal(gated.Summary.Gates, []plan.Gate{plan.GateDNSOverwrite}) {
		t.Errorf("without the gate: result %q, summary %+v; want gated, 1 update needing GATE-DNS-OVERWRITE", gated.Apply.Result, gated.Summary)
	}
	if len(gated.Changes) != 1 || gated.Changes[0].Key != "dns/"+zone+"/www."+zone+"/A" {
		t.Errorf("changes %+v, want the one update by its full key", gated.Changes)
	}
	wantBlocked := []plan.Outcome{{Step: "dns/" + zone, Phase: plan.PhaseDNS, Tenant: "office1", Outcome: plan.OutcomeBlocked,
		Changes: 1, Error: "needs GATE-DNS-OVERWRITE acknowledged (--ack); nothing was changed"}}
	if !slices.EqualFunc(gated.Apply.Steps, wantBlocked, outcomeEqual) || !strings.Contains(gated.Apply.Error, "not acknowledged") {
		t.Errorf("without the gate: apply %+v, want steps %+v and the error", gated.Apply, wantBlocked)
	}

	// The server refuses the write with an error that would drive a
	// terminal: the step failed, its error decoded as the server wrote it.
	hostile := "backend down \x1b[2J\u202eevil"
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		return http.StatusUnprocessableEntity, `{"error": "` + strings.ReplaceAll(hostile, "\x1b", `\u001b`) + `"}`, r.Method == http.MethodPatch
	})
	failed := applyJSON(t, srv, exitError, "--ack", "GATE-DNS-OVERWRITE", "--yes", file)
	if failed.Apply.Result != plan.ResultFailed || len(failed.Apply.Steps) != 1 || failed.Apply.Steps[0].Outcome != "failed" ||
		!strings.Contains(failed.Apply.Steps[0].Error, "backend down") {
		t.Errorf("a refused write: apply %+v, want result failed and the step failed with the server's error", failed.Apply)
	}
	srv.FailWhen(t, func(*http.Request) (int, string, bool) { return 0, "", false })

	applied := applyJSON(t, srv, exitOK, "--ack", "GATE-DNS-OVERWRITE", "--yes", file)
	want := []plan.Outcome{{Step: "dns/" + zone, Phase: plan.PhaseDNS, Tenant: "office1", Outcome: "applied", Changes: 1}}
	if applied.Apply.Result != plan.ResultApplied || applied.Apply.Error != "" || !slices.EqualFunc(applied.Apply.Steps, want, outcomeEqual) ||
		!slices.Equal(applied.Summary.Acknowledged, []plan.Gate{plan.GateDNSOverwrite}) {
		t.Errorf("with the gate: apply %+v, summary %+v; want applied, steps %+v, GATE-DNS-OVERWRITE acknowledged", applied.Apply, applied.Summary, want)
	}
	if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.80"}) {
		t.Errorf("www serves %q after the apply, want 192.0.2.80", got)
	}

	converged := applyJSON(t, srv, exitOK, file)
	if converged.Apply.Result != plan.ResultConverged || len(converged.Apply.Steps) != 0 {
		t.Errorf("converged: apply %+v, want result converged and no steps", converged.Apply)
	}
}

// outcomeEqual compares what a test says of an outcome: notes and the
// counts of requests are the backend's.
func outcomeEqual(a, b plan.Outcome) bool {
	return a.Step == b.Step && a.Phase == b.Phase && a.Tenant == b.Tenant && a.Outcome == b.Outcome &&
		a.Changes == b.Changes && a.Error == b.Error && len(a.Problems) == len(b.Problems)
}

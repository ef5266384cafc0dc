package engine

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/golden"
)

// TestWriteReport (moved from cmd/site with the renderer): the apply
// report as a person reads it, with and without colour.
func TestWriteReport(t *testing.T) {
	rep := &Report{Steps: []StepReport{
		{Step: stepSecret, Status: StatusDeferred, Reason: "GATE-SECRET-UNREACHABLE acknowledged: no vault answered"},
		{Step: stepNet, Status: StatusFailed, Reason: "defining network lan: virNetworkDefineXML: permission denied"},
		{Step: stepVM, Status: StatusSkipped, Reason: "it depends on " + stepNet + ", which did not apply"},
		{Step: stepZoneA, Status: StatusApplied, Changes: 12, Requests: 2, Reads: 1, Writes: 1, Queries: 1, Notes: []string{"verified 12 names"}},
		{Step: stepZoneB, Status: StatusApplied, Changes: 1, Requests: 2, Reads: 1, Writes: 1, Queries: 4,
			Problems: []string{"www.b.example. answers NXDOMAIN, want A 192.0.2.1"}},
		{Step: "dns/c.example.", Status: StatusUnchanged},
	}}
	for _, tc := range []struct {
		name  string
		rep   *Report
		color bool
	}{
		{name: "report_mixed.golden", rep: rep},
		{name: "report_mixed_color.golden", rep: rep, color: true},
		{name: "report_converged.golden", rep: &Report{Steps: []StepReport{
			{Step: stepZoneA, Status: StatusApplied, Changes: 1, Requests: 2, Reads: 1, Writes: 1, Queries: 1},
			{Step: stepZoneB, Status: StatusUnchanged},
		}}},
		// A backend that does not tell reads from writes (libvirt) is
		// counted in requests, beside those that do.
		{name: "report_calls.golden", rep: &Report{Steps: []StepReport{
			{Step: stepVM, Status: StatusApplied, Changes: 3, Requests: 11},
			{Step: stepZoneA, Status: StatusApplied, Changes: 30, Requests: 2, Reads: 1, Writes: 1, Queries: 1},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.rep.WriteText(&b, tc.color); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name), b.Bytes())
		})
	}
}

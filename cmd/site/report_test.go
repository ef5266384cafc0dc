package backends

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/compiler/golden"
)

func TestReportWriteText(t *testing.T) {
	rep := &Report{Steps: []StepReport{
		{Step: stepSecret, Status: StatusDeferred, Reason: "GATE-SECRET-UNREACHABLE acknowledged: no vault answered"},
		{Step: stepNet, Status: StatusFailed, Reason: "defining network lan: virNetworkDefineXML: permission denied"},
		{Step: stepVM, Status: StatusSkipped, Reason: "it depends on " + stepNet + ", which did not apply"},
		{Step: stepZoneA, Status: StatusApplied, Changes: 12, Requests: 2, Notes: []string{"verified 12 names"}},
		{Step: stepZoneB, Status: StatusApplied, Changes: 1, Requests: 1,
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
			{Step: stepZoneA, Status: StatusApplied, Changes: 1, Requests: 1},
			{Step: stepZoneB, Status: StatusUnchanged},
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

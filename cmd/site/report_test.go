package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/golden"
)

// Step IDs as site graph names them.
const (
	stepSecret = "secret/bao/dns/cf#token"
	stepNet    = "network/test:///default/lan"
	stepVM     = "vm/test:///default/web"
	stepZoneA  = "dns/a.example."
	stepZoneB  = "dns/b.example."
)

func TestWriteReport(t *testing.T) {
	rep := &engine.Report{Steps: []engine.StepReport{
		{Step: stepSecret, Status: engine.StatusDeferred, Reason: "GATE-SECRET-UNREACHABLE acknowledged: no vault answered"},
		{Step: stepNet, Status: engine.StatusFailed, Reason: "defining network lan: virNetworkDefineXML: permission denied"},
		{Step: stepVM, Status: engine.StatusSkipped, Reason: "it depends on " + stepNet + ", which did not apply"},
		{Step: stepZoneA, Status: engine.StatusApplied, Changes: 12, Requests: 2, Reads: 1, Writes: 1, Queries: 1, Notes: []string{"verified 12 names"}},
		{Step: stepZoneB, Status: engine.StatusApplied, Changes: 1, Requests: 2, Reads: 1, Writes: 1, Queries: 4,
			Problems: []string{"www.b.example. answers NXDOMAIN, want A 192.0.2.1"}},
		{Step: "dns/c.example.", Status: engine.StatusUnchanged},
	}}
	for _, tc := range []struct {
		name  string
		rep   *engine.Report
		color bool
	}{
		{name: "report_mixed.golden", rep: rep},
		{name: "report_mixed_color.golden", rep: rep, color: true},
		{name: "report_converged.golden", rep: &engine.Report{Steps: []engine.StepReport{
			{Step: stepZoneA, Status: engine.StatusApplied, Changes: 1, Requests: 2, Reads: 1, Writes: 1, Queries: 1},
			{Step: stepZoneB, Status: engine.StatusUnchanged},
		}}},
		// A backend that does not tell reads from writes (libvirt) is
		// counted in requests, beside those that do.
		{name: "report_calls.golden", rep: &engine.Report{Steps: []engine.StepReport{
			{Step: stepVM, Status: engine.StatusApplied, Changes: 3, Requests: 11},
			{Step: stepZoneA, Status: engine.StatusApplied, Changes: 30, Requests: 2, Reads: 1, Writes: 1, Queries: 1},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeReport(&b, tc.rep, tc.color); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(pkgDir, "testdata", tc.name), b.Bytes())
		})
	}
}

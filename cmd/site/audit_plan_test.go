package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// TestSavedPlanRefusesAnyChangeInScope is INCIDENTS.md §3's "plan
// evidence goes stale", beyond the record-added case: whatever moved in
// the saved plan's scope between site diff --out and site apply --plan
// (another tenant's zone, only an owner marker, the plan file itself, a
// zone that could not be read when the plan was saved), apply refuses
// with exit 1 and writes nothing.
func TestSavedPlanRefusesAnyChangeInScope(t *testing.T) {
	tests := []struct {
		name   string
		before func(t *testing.T, srv *pdnstest.Server) // before site diff --out
		change func(t *testing.T, srv *pdnstest.Server, file, planFile string)
		stale  string // what stderr must say
	}{
		{"a record added in the other tenant's zone", nil,
			func(t *testing.T, srv *pdnstest.Server, _, _ string) {
				srv.Replace(t, "p2.test.", pdnstest.RRset{Name: "ftp.p2.test.", Type: "A", TTL: 60, Records: []string{"198.51.100.21"}})
			}, "dns/p2.test. changed on the live system"},
		{"only the owner marker of a record changed", nil,
			func(t *testing.T, srv *pdnstest.Server, _, _ string) {
				srv.Replace(t, "p1.test.", pdnstest.RRset{Name: "old.p1.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
					Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("lab")}}})
			}, "dns/p1.test. changed on the live system"},
		{"a record's TTL changed", nil,
			func(t *testing.T, srv *pdnstest.Server, _, _ string) {
				srv.Replace(t, "p1.test.", pdnstest.RRset{Name: "old.p1.test.", Type: "A", TTL: 301, Records: []string{"192.0.2.9"},
					Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
			}, "dns/p1.test. changed on the live system"},
		{"the plan file's changes were edited", nil,
			func(t *testing.T, _ *pdnstest.Server, _, planFile string) {
				src, err := os.ReadFile(planFile)
				if err != nil {
					t.Fatal(err)
				}
				edited := strings.Replace(string(src), "192.0.2.80", "192.0.2.81", 1)
				if edited == string(src) {
					t.Fatalf("nothing to edit in the plan:\n%s", src)
				}
				if err := os.WriteFile(planFile, []byte(edited), 0o644); err != nil {
					t.Fatal(err)
				}
			}, "dns/p1.test. plans other changes now"},
		{"the plan file's fingerprints were removed", nil,
			func(t *testing.T, _ *pdnstest.Server, _, planFile string) {
				src, err := os.ReadFile(planFile)
				if err != nil {
					t.Fatal(err)
				}
				i := strings.Index(string(src), `"fingerprints"`)
				if i < 0 {
					t.Fatalf("no fingerprints in the plan:\n%s", src)
				}
				edited := strings.TrimRight(string(src[:i]), " \n\t,") + "\n}\n"
				if err := os.WriteFile(planFile, []byte(edited), 0o644); err != nil {
					t.Fatal(err)
				}
			}, "is not in the saved plan"},
		{"a zone unreadable when saved reads now",
			func(t *testing.T, srv *pdnstest.Server) {
				srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
					return 500, `{"error":"down"}`, strings.Contains(r.URL.Path, "p2.test")
				})
			},
			func(t *testing.T, srv *pdnstest.Server, _, _ string) {
				srv.FailWhen(t, func(*http.Request) (int, string, bool) { return 0, "", false })
			}, "dns/p2.test. was not observed when the plan was saved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, "p1.test.", pdnstest.RRset{Name: "old.p1.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
				Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
			srv.CreateZone(t, "p2.test.")
			file := multiTenant(t, srv, map[string][]zoneSpec{
				"office1": {{"p1.test", `www: A: ["192.0.2.80"]
			old: A: ["192.0.2.9"]`, ""}},
				"lab": {{"p2.test", `www: A: ["192.0.2.82"]`, ""}},
			})
			planFile := filepath.Join(t.TempDir(), "plan.json")
			// apply --plan reads the site.cue of where it runs, as the operator runs it.
			t.Chdir(filepath.Dir(file))
			if tt.before != nil {
				tt.before(t, srv)
			}
			code, out, errOut := siteRun(t, srv, "diff", "--out", planFile, file)
			if code != exitOK && tt.before == nil {
				t.Fatalf("diff exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			tt.change(t, srv, file, planFile)
			srv.ResetRequests("p1.test.")
			srv.ResetRequests("p2.test.")
			code, out, errOut = siteRun(t, srv, "apply", "--plan", planFile, file)
			if code != exitError {
				t.Fatalf("apply --plan exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitError, out, errOut)
			}
			if !strings.Contains(errOut, "the plan is stale") || !strings.Contains(errOut, tt.stale) {
				t.Errorf("stderr does not say the plan is stale because %q:\n%s", tt.stale, errOut)
			}
			for _, z := range []string{"p1.test.", "p2.test."} {
				if got := srv.Requests(z).Writes(); got != 0 {
					t.Errorf("zone %s: a stale plan made %d writes, want none", z, got)
				}
			}
		})
	}
}

// TestSavedPlanWithDeleteThreshold: a plan saved by diff with a
// --delete-threshold above the default is applied only with the same
// --delete-threshold on apply's command line too: a plan file is
// anyone's to write, and one from a pull request raised it so that
// GATE-DNS-DELETE-MANY never triggered; apply --plan alone deleted 4
// of 10 records without the gate. Another threshold on apply's
// command line is refused, naming both.
func TestSavedPlanWithDeleteThreshold(t *testing.T) {
	srv := pdnsEnv(t)
	var live []pdnstest.RRset
	var keep []string
	for i := range 10 {
		live = append(live, pdnstest.RRset{Name: fmt.Sprintf("h%d.thr.test.", i), Type: "A", TTL: 300, Records: []string{"192.0.2.1"},
			Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}})
		if i < 6 {
			keep = append(keep, fmt.Sprintf("h%d: A: [\"192.0.2.1\"]", i))
		}
	}
	srv.CreateZone(t, "thr.test.", live...)
	file := tenantFile(t, srv, "thr.test", strings.Join(keep, "\n"))
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	// 4 of 10 deletes: gated at 30 %, not at 50 %.
	if code, out, errOut := siteRun(t, srv, "diff", "--delete-threshold", "50", "--out", planFile, file); code != exitOK || strings.Contains(out, "GATE-DNS-DELETE-MANY") {
		t.Fatalf("diff --delete-threshold 50: exit %d, want 0 and no GATE-DNS-DELETE-MANY\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := siteRun(t, srv, "apply", "--plan", planFile, "--delete-threshold", "30")
	want := "site: --delete-threshold 30 differs from what the plan " + planFile + " was saved with (--delete-threshold 50)"
	if code != exitError || !strings.Contains(errOut, want) {
		t.Errorf("apply --plan --delete-threshold 30: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, exitError, want, out, errOut)
	}
	srv.ResetRequests("thr.test.")
	code, out, errOut = siteRun(t, srv, "apply", "--plan", planFile)
	want = "site: the plan " + planFile + " was saved with --delete-threshold 50 (more of a zone's records deleted without GATE-DNS-DELETE-MANY than apply's 30)"
	if code != exitError || !strings.Contains(errOut, want) || !strings.HasSuffix(errOut, ": add --delete-threshold 50 to apply's command line, or save the plan again without it\n") {
		t.Errorf("apply --plan alone: exit %d, want %d, %q and what to add\nstdout:\n%s\nstderr:\n%s", code, exitError, want, out, errOut)
	}
	if got := srv.Requests("thr.test.").Writes(); got != 0 {
		t.Errorf("apply --plan alone made %d writes, want none", got)
	}
	if code, out, errOut := siteRun(t, srv, "apply", "--plan", planFile, "--delete-threshold", "50", "--yes"); code != exitOK {
		t.Fatalf("apply --plan --delete-threshold 50: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := srv.Query(t, "h9.thr.test.", "A"); len(got) != 0 {
		t.Errorf("h9 still served: %q", got)
	}
}

// TestSavedPlanCannotAckAChangesGate: a saved plan records the acks that
// deferred a step (GATE-SECRET-UNREACHABLE), and apply --plan takes
// them; a plan file a pull request adds, or anyone edits, listed
// GATE-DNS-OVERWRITE there, and apply --plan replaced a record site did
// not write without an --ack on its command line. A gate of the
// changes themselves is acknowledged on apply's command line only.
func TestSavedPlanCannotAckAChangesGate(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "ow.test.", pdnstest.RRset{Name: "www.ow.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
	file := tenantFile(t, srv, "ow.test", `www: A: ["192.0.2.2"]`)
	planFile := filepath.Join(t.TempDir(), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	if code, out, errOut := siteRun(t, srv, "diff", "--out", planFile, file); code != exitOK || !strings.Contains(out, "GATE-DNS-OVERWRITE") {
		t.Fatalf("diff: exit %d, want 0 and a change behind GATE-DNS-OVERWRITE\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	src, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(src, &p); err != nil {
		t.Fatal(err)
	}
	p["options"].(map[string]any)["acks"] = []string{"GATE-DNS-OVERWRITE"}
	if src, err = json.Marshal(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planFile, src, 0o644); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests("ow.test.")
	code, out, errOut := siteRun(t, srv, "apply", "--plan", planFile)
	if code == exitOK {
		t.Errorf("apply --plan with GATE-DNS-OVERWRITE among the plan's acks: exit 0, want a refusal\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if got := srv.Requests("ow.test.").Writes(); got != 0 {
		t.Errorf("apply --plan made %d writes, want none", got)
	}
	if got := srv.Query(t, "www.ow.test.", "A"); len(got) != 1 || !strings.HasSuffix(got[0], " 192.0.2.1") {
		t.Errorf("www.ow.test. A: %q, want the foreign 192.0.2.1 still served", got)
	}
}

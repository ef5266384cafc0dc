package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckGiven: what apply's command line adds to a saved plan must
// agree with what the plan was saved with, and what the plan loosens
// must be on the command line too (moved here from cmd/site, whose
// TestSavedPlan* tests still run it end to end).
func TestCheckGiven(t *testing.T) {
	update := 30
	saved := &Plan{Spec: &Spec{Paths: []string{"tenants/a.cue"}}, Only: []Phase{PhaseDNS}, Targets: []string{"dns/a."},
		Options: &Options{DeleteThreshold: 50, UpdateThreshold: &update, Restart: []string{"a/vm"}}}
	given := func(flags ...string) Given {
		set := map[string]bool{}
		for _, f := range flags {
			set[f] = true
		}
		return Given{File: "plan.json", Changed: func(f string) bool { return set[f] },
			Settings: Settings{DeleteManyPercent: 50, UpdateManyPercent: 30}}
	}
	tests := []struct {
		name string
		g    func() Given
		want string // substring of the error; "" for none
	}{
		{"loosening not repeated", func() Given { return given() }, "add --delete-threshold 50"},
		{"loosening repeated", func() Given {
			g := given("delete-threshold", "restart")
			g.Restarts = []string{"a/vm"}
			return g
		}, ""},
		{"other paths", func() Given { g := given(); g.Paths = []string{"b.cue"}; return g }, "PATH b.cue differs"},
		{"other only", func() Given { g := given(); g.Only, g.Phases = "vm", []Phase{PhaseVM}; return g }, "--only vm differs"},
		{"other targets", func() Given { g := given(); g.Targets = []string{"dns/b."}; return g }, "differs from what the plan plan.json was saved with"},
		{"other restart", func() Given { g := given("restart"); g.Restarts = []string{"a/other"}; return g }, "differs"},
		{"other threshold", func() Given {
			g := given("delete-threshold")
			g.Settings.DeleteManyPercent = 60
			return g
		}, "--delete-threshold 60 differs from what the plan plan.json was saved with (--delete-threshold 50)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := saved.CheckGiven(tt.g())
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckGiven = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestReadSaved: a missing file says how to save one; a JSON plan
// without spec or options is refused.
func TestReadSaved(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadSaved(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "save a plan first with: site diff --out") {
		t.Errorf("ReadSaved(missing) = %v, want how to save one", err)
	}
	bare := filepath.Join(dir, "bare.json")
	if err := (&Plan{}).Save(bare); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSaved(bare); err == nil || !strings.Contains(err.Error(), "records no spec or options") {
		t.Errorf("ReadSaved(bare) = %v, want no spec or options", err)
	}
	if err := os.WriteFile(bare, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSaved(bare); err == nil || !strings.Contains(err.Error(), "--plan "+bare) {
		t.Errorf("ReadSaved(broken) = %v, want the file named", err)
	}
}

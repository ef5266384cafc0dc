package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// applyGates is what site apply and site diff take with --ack.
const applyGates = "GATE-DNS-DELETE-MANY, GATE-DNS-OVERWRITE, GATE-DNS-UPDATE-MANY, GATE-NET-DESTROY, GATE-SECRET-UNREACHABLE, GATE-VM-DESTROY, GATE-VM-DISK-REBASE, GATE-VM-DISK-RESIZE, GATE-VM-RESTART, GATE-VM-STOP"

// quietSpec writes a tenant with nothing to converge (no zone, no VM),
// and its site.cue, and returns the tenant file: apply and diff of it
// need no server.
func quietSpec(t *testing.T) string {
	t.Helper()
	site := siteSrc(pdnsProvider("pdns", "http://127.0.0.1:1", "PDNS_API_KEY", "off"),
		grant{tenant: "quiet", domains: []string{"quiet.example.test"}, providers: []string{"pdns"}})
	return writeSpec(t, site, "quiet.cue", "package tenants\n\ntenants: quiet: domain: \"quiet.example.test\"\n")
}

// checkRefusal runs site with args and wants exit code; a refusal (any
// code but exitOK) must say want on stderr and print nothing on stdout:
// refused at once, before anything is loaded or observed.
func checkRefusal(t *testing.T, args []string, code int, want string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	got := run(args, &stdout, &stderr)
	if got != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, code, &stdout, &stderr)
	}
	if code == exitOK {
		return
	}
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, &stderr)
	}
	if stdout.Len() != 0 {
		t.Errorf("a refusal printed on stdout:\n%s", &stdout)
	}
}

// TestSavedPlanAcksHeldToApplysGates: the acks a saved plan carries are
// added to apply's, so they are held to the same rules: a plan edited to
// carry another command's gate is refused, before anything is observed.
func TestSavedPlanAcksHeldToApplysGates(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	file := quietSpec(t)
	saved := filepath.Join(filepath.Dir(file), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diff", "--out", saved, file}, &stdout, &stderr); code != exitOK {
		t.Fatalf("diff --out: exit %d\n%s", code, &stderr)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ack  string
		code int
		want string
	}{
		{"GATE-LOCK-BREAK", exitError, "site: --plan " + saved + " records an ack site apply cannot take (--ack GATE-LOCK-BREAK: that gate is for site unlock, and site apply never uses it: drop it (site apply takes one of " + applyGates + ")): save the plan again with site diff --out\n"},
		{"GATE-NOPE", exitError, "site: --plan " + saved + " records an ack site apply cannot take (--ack: unknown gate \"GATE-NOPE\""},
	} {
		t.Run(tc.ack, func(t *testing.T) {
			var p map[string]any
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			p["options"].(map[string]any)["acks"] = []string{tc.ack}
			edited, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(saved, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"apply", "--plan", saved}, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, &stdout, &stderr)
			}
			if tc.code != exitOK && !strings.HasPrefix(stderr.String(), tc.want) {
				t.Errorf("stderr:\n%s\nwant it to start:\n%s", &stderr, tc.want)
			}
		})
	}
}

// TestSavedPlanCannotLoosenApply: a saved plan's options that let apply
// do more than its defaults (a --delete-threshold or --update-threshold
// above the default,
// a --restart, the ack that goes on without the steps it defers) count
// only when apply's own command line gives them too, as a plan file is
// anyone's to write; apply --plan said nothing and took them from the
// file. The refusal comes before anything is observed and says exactly
// what to add. A stricter threshold needs nothing.
func TestSavedPlanCannotLoosenApply(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	file := quietSpec(t)
	saved := filepath.Join(filepath.Dir(file), "plan.json")
	// apply --plan reads the site.cue of where it runs, as the operator runs it.
	t.Chdir(filepath.Dir(file))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diff", "--out", saved, file}, &stdout, &stderr); code != exitOK {
		t.Fatalf("diff --out: exit %d\n%s", code, &stderr)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	const (
		threshold = "--delete-threshold 50 (more of a zone's records deleted without GATE-DNS-DELETE-MANY than apply's 30)"
		restart   = "--restart quiet/web (restarts that guest when GATE-VM-RESTART is acknowledged)"
		defers    = "--ack GATE-SECRET-UNREACHABLE (goes on without the steps it defers, where apply stops)"
	)
	refusal := func(what, add string) string {
		return "site: the plan " + saved + " was saved with " + what + ", and a plan file is anyone's to write (a pull request may add one), so apply takes what loosens its checks only from its own command line: add " + add + " to apply's command line, or save the plan again without it\n"
	}
	for _, tc := range []struct {
		name    string
		options map[string]any
		args    []string
		code    int
		want    string
	}{
		{"a higher threshold", map[string]any{"delete_threshold": 50}, nil, exitError, refusal(threshold, "--delete-threshold 50")},
		{"a higher threshold given again", map[string]any{"delete_threshold": 50}, []string{"--delete-threshold", "50"}, exitOK, ""},
		{"a lower threshold", map[string]any{"delete_threshold": 10}, nil, exitOK, ""},
		{"a higher update threshold", map[string]any{"delete_threshold": 30, "update_threshold": 60}, nil, exitError,
			refusal("--update-threshold 60 (more of a zone's records updated without GATE-DNS-UPDATE-MANY than apply's 30)", "--update-threshold 60")},
		{"a higher update threshold given again", map[string]any{"delete_threshold": 30, "update_threshold": 60}, []string{"--update-threshold", "60"}, exitOK, ""},
		{"a plan saved before --update-threshold", map[string]any{"delete_threshold": 30}, []string{"--update-threshold", "30"}, exitOK, ""},
		{"a restart", map[string]any{"delete_threshold": 30, "restart": []string{"quiet/web"}}, nil, exitError, refusal(restart, "--restart quiet/web")},
		{"a deferring ack", map[string]any{"delete_threshold": 30, "acks": []string{"GATE-SECRET-UNREACHABLE"}}, nil, exitError, refusal(defers, "--ack GATE-SECRET-UNREACHABLE")},
		{"a deferring ack given again", map[string]any{"delete_threshold": 30, "acks": []string{"GATE-SECRET-UNREACHABLE"}}, []string{"--ack", "GATE-SECRET-UNREACHABLE"}, exitOK, ""},
		{"all three", map[string]any{"delete_threshold": 50, "restart": []string{"quiet/web"}, "acks": []string{"GATE-SECRET-UNREACHABLE"}}, []string{"--ack", "GATE-SECRET-UNREACHABLE"}, exitError,
			refusal(threshold+" and "+restart, "--delete-threshold 50 --restart quiet/web")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p map[string]any
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			p["options"] = tc.options
			edited, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(saved, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"apply", "--plan", saved}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, &stdout, &stderr)
			}
			if got := stderr.String(); tc.code != exitOK && got != tc.want {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

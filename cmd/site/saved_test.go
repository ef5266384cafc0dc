package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSavedPlanArgReadsNoLink: site apply PATH looks at a PATH that is
// not a .cue file to say when it is a saved plan. A path a pull request
// can add (site apply tenants/*) may be a symbolic link to any file of
// the runner, which site never reads through a link; it read it, to
// its end. A link, even to a plan, or a pipe, is not looked into.
func TestSavedPlanArgReadsNoLink(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(path("plan.json"), []byte(`{"format_version": 2, "changes": [], "fingerprints": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path("plan.json"), path("link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := savedPlanArg([]string{path("plan.json")}); got != path("plan.json") {
		t.Errorf("a saved plan: got %q, want it named", got)
	}
	for _, name := range []string{"link", "fifo"} {
		if got := savedPlanArg([]string{path(name)}); got != "" {
			t.Errorf("%s: got %q, want \"\": site does not read it", name, got)
		}
	}
}

// TestSavedPlanArgReadsItsStart: a saved plan starts with its
// format_version, so that is all savedPlanArg reads of a PATH; it read
// the whole file into memory (a log file, a disk image), and one of
// 1 TiB (sparse here) ran the runner out of memory.
func TestSavedPlanArgReadsItsStart(t *testing.T) {
	dir := t.TempDir()
	for name, start := range map[string]string{"huge-plan.json": `{"format_version": 2, "changes": [`, "huge-log": `{"level": "info", "msg": "`} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(start); err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(1 << 40); err != nil {
			t.Skipf("no sparse file of 1 TiB here: %v", err)
		}
		f.Close()
	}
	if got, want := savedPlanArg([]string{filepath.Join(dir, "huge-log"), filepath.Join(dir, "huge-plan.json")}), filepath.Join(dir, "huge-plan.json"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSavedPlanDoesNotChooseSiteCue: where the current directory and its
// parents hold no site.cue, apply --plan took the one beside the paths
// the plan names, so a plan file (anyone's to write) naming
// /tmp/evil/tenants/x.cue had apply read /tmp/evil/site.cue and send
// the runner's credentials where it says. It now finds site.cue as
// site apply with those paths does only where that site.cue really lies
// in the current directory's tree; elsewhere it insists on --config.
func TestSavedPlanDoesNotChooseSiteCue(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	spec := quietSpec(t)
	dir := filepath.Dir(spec)
	siteRun := func(args ...string) (int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		return code, stderr.String()
	}
	saved := filepath.Join(t.TempDir(), "plan.json")
	if code, errOut := siteRun("diff", "--out", saved, spec); code != exitOK {
		t.Fatalf("diff --out: exit %d\n%s", code, errOut)
	}
	refusal := func(planFile, path, config string) string {
		return "site: the plan " + planFile + " names " + path + ", beside which site would read " + config + ", outside the current directory's tree and its parents; a plan file is anyone's to write, so it does not choose the operator's file: name it with --config FILE, or run site apply --plan where site.cue is\n"
	}
	t.Run("outside the current directory", func(t *testing.T) {
		code, errOut := siteRun("apply", "--plan", saved)
		if want := refusal(saved, spec, filepath.Join(dir, "site.cue")); code != exitError || errOut != want {
			t.Errorf("exit %d, want %d\nstderr:\n%s\nwant:\n%s", code, exitError, errOut, want)
		}
		if code, errOut := siteRun("apply", "--plan", saved, "--config", filepath.Join(dir, "site.cue")); code != exitOK {
			t.Errorf("with --config: exit %d, want 0\nstderr:\n%s", code, errOut)
		}
	})
	t.Run("beside the paths, inside the current directory", func(t *testing.T) {
		t.Chdir(filepath.Dir(dir))
		rel := filepath.Join(filepath.Base(dir), "quiet.cue")
		if code, errOut := siteRun("diff", "--out", saved, rel); code != exitOK {
			t.Fatalf("diff --out: exit %d\n%s", code, errOut)
		}
		if code, errOut := siteRun("apply", "--plan", saved); code != exitOK {
			t.Errorf("exit %d, want 0\nstderr:\n%s", code, errOut)
		}
	})
	t.Run("through a link out of the current directory", func(t *testing.T) {
		cwd := t.TempDir()
		t.Chdir(cwd)
		if err := os.Symlink(dir, "tenants"); err != nil {
			t.Fatal(err)
		}
		if code, errOut := siteRun("diff", "--out", saved, "tenants/quiet.cue"); code != exitOK {
			t.Fatalf("diff --out: exit %d\n%s", code, errOut)
		}
		code, errOut := siteRun("apply", "--plan", saved)
		real, err := filepath.EvalSymlinks(filepath.Join(dir, "site.cue"))
		if err != nil {
			t.Fatal(err)
		}
		if want := refusal(saved, "tenants/quiet.cue", "tenants/site.cue (really "+real+")"); code != exitError || errOut != want {
			t.Errorf("exit %d, want %d\nstderr:\n%s\nwant:\n%s", code, exitError, errOut, want)
		}
	})
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUndoJournalInVaultOnCloudflare: with site.cue's locks in the
// vault bao, tenant sjc's journal is the KV v2 secret
// site-journal/sjc beside its lock (one version per apply), site
// history lists it from there, and site undo of an apply that swapped
// a CNAME for an A and changed a value on Cloudflare brings the records
// back as they were. No journal file is written anywhere else.
func TestUndoJournalInVaultOnCloudflare(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := vaultLockedSjc(t, []string{cs.vault.URL}, cs.cf.URL)
	if code, out, errOut := cs.site(t, "apply", file); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	before := cs.records()
	v2 := strings.NewReplacer(`www: CNAME: "forge.sjc.example.net."`, `www: A: ["203.0.113.30"]`,
		`keys: A: ["203.0.113.10"]`, `keys: A: ["203.0.113.99"]`).Replace(sjcLike())
	if err := os.WriteFile(file, []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cs.site(t, "apply", file, "--yes"); code != exitOK {
		t.Fatalf("apply v2: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Join(cs.records(), "\n") == strings.Join(before, "\n") {
		t.Fatal("apply v2 changed nothing")
	}
	code, out, errOut := cs.site(t, "history", file)
	where := "vault bao at " + cs.vault.URL + " (KV v2 secret/site-journal/sjc)"
	if code != exitOK || !strings.Contains(out, "# tenant sjc (journal in "+where+")") || strings.Count(out, "Z-") != 2 {
		t.Fatalf("history: exit %d, want 2 entries in %s\n%s%s", code, where, out, errOut)
	}
	listed := out
	if data, _ := cs.vault.Latest("secret", "site-journal/sjc"); data["entry"] == nil {
		t.Errorf("the journal secret's latest version holds %v, want an entry", data)
	}
	code, out, errOut = cs.site(t, "undo", file, "--yes")
	if code != exitOK {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
	}
	if got := cs.records(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("records after the undo:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(before, "\n"))
	}
	// Other tests of a tenant sjc share the state directory and keep
	// their journals there: none of this run's entries may be among them.
	for _, id := range regexp.MustCompile(`\d{8}T\d{6}\.\d{3}Z-[0-9A-F]{8}`).FindAllString(listed, -1) {
		if m, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "site", "locks", "sjc.journal", id+"*")); len(m) > 0 {
			t.Errorf("entry %s was written to a journal directory: %v", id, m)
		}
	}
}

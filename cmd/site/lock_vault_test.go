package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
)

// vaultLockedSjc writes tenant sjc and a site.cue keeping the apply
// locks in the vault bao (locks: vault).
func vaultLockedSjc(t *testing.T, addrs []string, cfURL string) string {
	t.Helper()
	return writeSpec(t, sjcSite(addrs, cfURL)+"locks: vault: \"bao\"\n", "sjc.cue", sjcLike())
}

// TestLockVault: site.cue keeps the locks in the vault bao, so tenant
// sjc's apply lock is the KV v2 secret site-locks/sjc there: a live
// holder written there stops apply (named, with where), diff notes it,
// unlock breaks it, and an apply then takes and releases the lock in
// the vault, leaving no file beside the spec. (Before site.cue's locks,
// the vault of a zone's credential held it; the test now names it.)
func TestLockVault(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := vaultLockedSjc(t, []string{closedPort(t), cs.vault.URL}, cs.cf.URL)
	lockFile := filepath.Join(filepath.Dir(file), ".sjc.lock")
	where := "vault bao at " + cs.vault.URL + " (KV v2 secret/site-locks/sjc)"

	var held map[string]any
	b, _ := json.Marshal(lock.Holder{ID: "07E4000000000000", Tenant: "sjc", Host: "runner-2", PID: 77, Start: time.Now(),
		Command: "site apply tenants/sjc.cue", Expires: time.Now().Add(time.Hour), State: lock.Held})
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	cs.vault.Put("secret", "site-locks/sjc", held)

	code, out, errOut := cs.site(t, "apply", file)
	if code != exitError || !strings.Contains(errOut, "host runner-2, pid 77") || !strings.Contains(errOut, "holding "+where) {
		t.Fatalf("apply under a live lease in the vault: exit %d, want 1 naming runner-2 and %s\nstdout:\n%s\nstderr:\n%s", code, where, out, errOut)
	}
	if n := len(cs.records()); n != 0 {
		t.Errorf("the locked-out apply wrote %d records", n)
	}
	code, out, errOut = cs.site(t, "diff", file)
	if code != exitOK || !strings.Contains(errOut, "note: tenant sjc is being applied now by host runner-2") {
		t.Errorf("diff: exit %d, want 0 and a note on the lock\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = cs.site(t, "unlock", "sjc", file, "--ack", "GATE-LOCK-BREAK")
	if code != exitOK || !strings.Contains(out, "host runner-2, pid 77") || !strings.Contains(out, where) {
		t.Fatalf("unlock --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if data, _ := cs.vault.Latest("secret", "site-locks/sjc"); data["released_by"] != "07E4000000000000" {
		t.Errorf("lock after unlock = %v, want released_by OTHER", data)
	}

	before := cs.vault.Count("write")
	if code, out, errOut := cs.site(t, "apply", file); code != exitOK {
		t.Fatalf("apply after unlock: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := cs.records(); strings.Join(got, "\n") != strings.Join(sjcRecords, "\n") {
		t.Errorf("zone after the apply:\n%s", strings.Join(got, "\n"))
	}
	// Taken (one write) and released (one more); renewals come only
	// every 20 s.
	if n := cs.vault.Count("write") - before; n < 2 {
		t.Errorf("apply wrote the vault lock %d times, want a take and a release", n)
	}
	data, _ := cs.vault.Latest("secret", "site-locks/sjc")
	if data["released_by"] == nil || data["released_by"] == "07E4000000000000" {
		t.Errorf("lock after the apply = %v, want released by the apply", data)
	}
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Errorf("lock file %s: %v, want none (the lock is in the vault)", filepath.Base(lockFile), err)
	}
}

// TestLockVaultForgedHolderStaysOnOneLine: a holder in the vault whose
// host carries a newline and ::error:: is shown escaped by apply, diff
// and unlock; no line they print starts a workflow command.
func TestLockVaultForgedHolderStaysOnOneLine(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := vaultLockedSjc(t, []string{cs.vault.URL}, cs.cf.URL)
	var held map[string]any
	b, _ := json.Marshal(lock.Holder{ID: "F0E6ED0000000000", Tenant: "sjc", Host: "h\n::error::forged", PID: 77, Start: time.Now(),
		Command: "site apply\n::error::forged", Expires: time.Now().Add(time.Hour), State: lock.Held})
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	cs.vault.Put("secret", "site-locks/sjc", held)
	for _, args := range [][]string{{"apply", file}, {"diff", file}, {"unlock", "sjc", file}} {
		_, out, errOut := cs.site(t, args...)
		if !strings.Contains(out+errOut, `host h\n::error::forged`) {
			t.Errorf("site %s: the holder is not shown escaped\nstdout:\n%s\nstderr:\n%s", args[0], out, errOut)
		}
		for _, line := range strings.Split(out+"\n"+errOut, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") {
				t.Errorf("site %s printed a workflow command: %q", args[0], line)
			}
		}
	}
}

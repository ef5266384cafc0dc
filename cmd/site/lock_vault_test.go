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

// TestLockVault: tenant sjc's Cloudflare token is in the vault bao, so
// its apply lock is the KV v2 secret site-locks/sjc there, not a lock
// file: a live holder written there stops apply (named, with where),
// diff notes it, unlock breaks it, and an apply then takes and releases
// the lock in the vault, leaving no file beside the spec.
func TestLockVault(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := sjcFile(t, sjcLike(), []string{closedPort(t), cs.vault.URL}, cs.cf.URL)
	lockFile := lock.FilePath(file, "sjc")
	where := "vault bao at " + cs.vault.URL + " (KV v2 secret/site-locks/sjc)"

	var held map[string]any
	b, _ := json.Marshal(lock.Holder{ID: "OTHER", Tenant: "sjc", Host: "runner-2", PID: 77, Start: time.Now(),
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
	if data, _ := cs.vault.Latest("secret", "site-locks/sjc"); data["released_by"] != "OTHER" {
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
	if data["released_by"] == nil || data["released_by"] == "OTHER" {
		t.Errorf("lock after the apply = %v, want released by the apply", data)
	}
	if _, err := os.Stat(lockFile); !os.IsNotExist(err) {
		t.Errorf("lock file %s: %v, want none (the lock is in the vault)", filepath.Base(lockFile), err)
	}
}

// TestLockVaultUnreachableSaysWhereTheLockIs: when the vault that would
// hold the lock does not answer, the lock falls back (here to the lock
// file beside the spec, which covers only this checkout), and apply
// says so; it fell back in silence.
func TestLockVaultUnreachableSaysWhereTheLockIs(t *testing.T) {
	cs := newColdStart(t, "sjc.example.net")
	file := sjcFile(t, sjcLike(), []string{closedPort(t)}, cs.cf.URL)
	code, out, errOut := cs.site(t, "apply", file, "--ack", "GATE-SECRET-UNREACHABLE")
	want := "site: note: vault bao does not hold tenant sjc's apply lock (no address of vault bao answered for the apply lock:"
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, "it is held in file "+lock.FilePath(file, "sjc")+" instead") {
		t.Errorf("apply with the vault down: exit %d, want a note that the lock is in the file\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

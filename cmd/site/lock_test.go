package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/lock/locktest"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// lockEntries lists the apply lock entries of zone on srv, by kind.
func lockEntries(t *testing.T, srv *pdnstest.Server, zone string) map[string]lock.Holder {
	t.Helper()
	code, body, err := srv.Do(context.Background(), "GET", "/zones/"+zone+"/metadata", nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET metadata: %d %v %s", code, err, body)
	}
	var md []struct {
		Kind     string   `json:"kind"`
		Metadata []string `json:"metadata"`
	}
	if err := json.Unmarshal(body, &md); err != nil {
		t.Fatal(err)
	}
	out := map[string]lock.Holder{}
	for _, m := range md {
		if strings.HasPrefix(m.Kind, powerdns.LockKindPrefix) && len(m.Metadata) > 0 {
			var h lock.Holder
			if err := json.Unmarshal([]byte(m.Metadata[0]), &h); err != nil {
				t.Fatal(err)
			}
			out[m.Kind] = h
		}
	}
	return out
}

// TestApplyLock runs two applies of one tenant with different specs at
// once against a real PowerDNS. The first is held inside its PATCH (the
// test's proxy waits), so the second surely runs while the first holds
// the lock: it exits 1 naming the holder, diff says an apply runs, and
// the first's version is what ends up live. Then a dead holder's expired
// lease is taken over.
func TestApplyLock(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	fileA := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	fileB := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.2"]`)

	patching, resume := make(chan struct{}), make(chan struct{})
	first := true
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == "PATCH" && first {
			first = false
			close(patching)
			<-resume
		}
		return 0, "", false
	})
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result)
	go func() {
		code, out, errOut := siteRun(t, srv, "apply", fileA)
		done <- result{code, out, errOut}
	}()
	select {
	case <-patching:
	case r := <-done: // it ended without a PATCH: waiting would hang the suite
		t.Fatalf("first apply ended before its PATCH: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}

	code, out, errOut := siteRun(t, srv, "apply", fileB)
	host, _ := os.Hostname()
	holder := fmt.Sprintf("tenant office1 is being applied by another run (host %s, pid %d, started ", host, os.Getpid())
	if code != exitError || !strings.Contains(errOut, holder) || !strings.Contains(errOut, `command "site apply `+fileA+`"`) {
		t.Errorf("second apply: exit %d, want 1 naming the holder %q\nstdout:\n%s\nstderr:\n%s", code, holder, out, errOut)
	}
	code, out, errOut = siteRun(t, srv, "diff", fileB)
	if code != exitOK || !strings.Contains(errOut, "note: tenant office1 is being applied now by host "+host) {
		t.Errorf("diff during an apply: exit %d, want 0 and a note on the lock\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	close(resume)
	if r := <-done; r.code != exitOK {
		t.Fatalf("first apply: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.errOut)
	}
	if got := srv.Query(t, "www."+zone, "A"); strings.Join(got, ",") != "300 192.0.2.1" {
		t.Errorf("live www A = %q, want the first apply's 192.0.2.1", got)
	}
	if e := lockEntries(t, srv, zone); len(e) != 0 {
		t.Errorf("the lock is still held after the apply ended: %+v", e)
	}

	// A holder that died: its entry stays, with a lease that has run out.
	dead, _ := json.Marshal(lock.Holder{ID: "DEAD000000000000", Tenant: "office1", Host: "gone", PID: 1, Start: time.Now().Add(-time.Hour),
		Command: "site apply", Expires: time.Now().Add(-time.Minute), State: lock.Held})
	body, _ := json.Marshal(map[string]any{"metadata": []string{string(dead)}})
	if code, b, err := srv.Do(context.Background(), "PUT", "/zones/"+zone+"/metadata/"+powerdns.LockKindPrefix+"DEAD000000000000", body); err != nil || code != http.StatusOK {
		t.Fatalf("PUT the dead holder's entry: %d %v %s", code, err, b)
	}
	code, out, errOut = siteRun(t, srv, "apply", fileB)
	if code != exitOK {
		t.Fatalf("apply over a dead holder's expired lease: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The dead run may have stopped half-way: the operator is told whose
	// lock was taken over, and that this apply converges what it left.
	tookOver := "site: took over the expired apply lock of tenant office1 held by host gone, pid 1, started "
	if !strings.Contains(errOut, tookOver) || !strings.Contains(errOut, "that run may have left changes half-done; this apply converges them") ||
		strings.Count(errOut, "took over") != 1 {
		t.Errorf("apply over a dead holder's expired lease: stderr lacks one note %q...:\n%s", tookOver, errOut)
	}
	if got := srv.Query(t, "www."+zone, "A"); strings.Join(got, ",") != "300 192.0.2.2" {
		t.Errorf("live www A = %q, want 192.0.2.2 after the take-over", got)
	}
	if e := lockEntries(t, srv, zone); len(e) != 0 {
		t.Errorf("entries left after the take-over: %+v", e)
	}
}

// TestUnlock breaks a lock whose holder is gone: listed first, then
// removed only with GATE-LOCK-BREAK, after which apply runs.
func TestUnlock(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	putLockEntry(t, srv, zone, staleHolder())
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitError || !strings.Contains(errOut, "host crashed-runner, pid 7") {
		t.Fatalf("apply under a live lease: exit %d, want 1 naming crashed-runner\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut := siteRun(t, srv, "unlock", "office1", file)
	if code != exitGated || !strings.Contains(out, "host crashed-runner, pid 7") || !strings.Contains(out, "lease still running") || len(lockEntries(t, srv, zone)) != 1 {
		t.Fatalf("unlock without --ack: exit %d, want 3, the holder listed and kept\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := siteRun(t, srv, "unlock", "office1", file, "--ack", "GATE-LOCK-BREAK"); code != exitOK || len(lockEntries(t, srv, zone)) != 0 ||
		!strings.Contains(out, "broke tenant office1's apply lock (1 entry).") {
		t.Fatalf("unlock --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := siteRun(t, srv, "apply", file); code != exitOK {
		t.Fatalf("apply after unlock: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, _ := siteRun(t, srv, "unlock", "office1", file); code != exitOK || !strings.Contains(out, "tenant office1 is not locked") {
		t.Errorf("unlock of a free tenant: exit %d\n%s", code, out)
	}
}

// staleHolder is a run that crashed holding office1's lock, its lease
// running for another hour.
func staleHolder() lock.Holder {
	return lock.Holder{ID: "57A1E00000000000", Tenant: "office1", Host: "crashed-runner", PID: 7, Start: time.Now(),
		Command: "site apply tenants/office1.cue", Expires: time.Now().Add(time.Hour), State: lock.Held}
}

// putLockEntry writes h's apply lock entry into zone's metadata, as a
// run holding the lock there would have.
func putLockEntry(t *testing.T, srv *pdnstest.Server, zone string, h lock.Holder) {
	t.Helper()
	entry, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"kind": powerdns.LockKindPrefix + h.ID, "metadata": []string{string(entry)}})
	if code, out, err := srv.Do(context.Background(), "PUT", "/zones/"+zone+"/metadata/"+powerdns.LockKindPrefix+h.ID, body); err != nil || code != http.StatusOK {
		t.Fatalf("write a lock entry to %s: %d %v %s", zone, code, err, out)
	}
}

// lockedTenantFile is tenantFile with site.cue keeping the apply locks
// in zone's own metadata (locks: powerdns), where the lock tests written
// before locks: look for them; zone must exist.
func lockedTenantFile(t *testing.T, srv *pdnstest.Server, zone, records string) string {
	t.Helper()
	file := tenantFile(t, srv, zone, records)
	site := filepath.Join(filepath.Dir(file), "site.cue")
	b, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`(?m)^locks: .*$`).ReplaceAll(b, []byte(fmt.Sprintf("locks: powerdns: {provider: %q, zone: %q}", "pdns", zone)))
	if err := os.WriteFile(site, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// lockedMultiTenant is multiTenant with site.cue keeping every tenant's
// apply lock in lockZone's metadata (locks: powerdns).
func lockedMultiTenant(t *testing.T, srv *pdnstest.Server, tenants map[string][]zoneSpec, lockZone string) string {
	t.Helper()
	dir := multiTenant(t, srv, tenants)
	site := filepath.Join(dir, "site.cue")
	b, err := os.ReadFile(site)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`(?m)^locks: .*$`).ReplaceAll(b, []byte(fmt.Sprintf("locks: powerdns: {provider: %q, zone: %q}", "pdns_api_key", lockZone)))
	if err := os.WriteFile(site, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// lockEntriesOf is lockEntries of tenant's runs alone.
func lockEntriesOf(t *testing.T, srv *pdnstest.Server, zone, tenant string) map[string]lock.Holder {
	t.Helper()
	out := map[string]lock.Holder{}
	for k, h := range lockEntries(t, srv, zone) {
		if h.Tenant == tenant {
			out[k] = h
		}
	}
	return out
}

// TestDiffReadsLocksWhileObserving: site diff reads the lock entries
// while it observes the zones, not before (one more round trip before
// the first observation, on every diff).
func TestDiffReadsLocksWhileObserving(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := lockedTenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	g := locktest.NewGauge()
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == "GET" {
			g.Enter()
			defer g.Leave()
		}
		return 0, "", false
	})
	if code, out, errOut := siteRun(t, srv, "diff", file); code != exitOK {
		t.Fatalf("diff: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if c := srv.Requests(zone + pdnstest.MetadataSuffix); c.GET != 1 {
		t.Fatalf("diff read the lock entries %d times, want once", c.GET)
	}
	if g.Most() < 2 {
		t.Errorf("the lock entries and the zone were read one after the other, want at once")
	}
}

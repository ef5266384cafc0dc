package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
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
	fileA := tenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
	fileB := tenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.2"]`)

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
	dead, _ := json.Marshal(lock.Holder{ID: "DEAD", Tenant: "office1", Host: "gone", PID: 1, Start: time.Now().Add(-time.Hour),
		Command: "site apply", Expires: time.Now().Add(-time.Minute), State: lock.Held})
	body, _ := json.Marshal(map[string]any{"metadata": []string{string(dead)}})
	if code, b, err := srv.Do(context.Background(), "PUT", "/zones/"+zone+"/metadata/"+powerdns.LockKindPrefix+"DEAD", body); err != nil || code != http.StatusOK {
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
	file := tenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
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

// TestLockEntriesReadOnceAndAtOnce: a tenant's apply lock lives in each
// of its PowerDNS zones. site diff reads the first zone's entries only
// (a run holds them all or none, the first before any other; it read
// every zone's twice, one zone after the other, most of a converged
// diff of 200 zones), and apply takes them at once, after the first.
func TestLockEntriesReadOnceAndAtOnce(t *testing.T) {
	srv := pdnsEnv(t)
	zones, dir := office1Zones(t, srv, 6)
	var g *locktest.Gauge
	gauged := func(r *http.Request) bool { return r.Method == "GET" }
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if strings.Contains(r.URL.Path, "/metadata") && g != nil && gauged(r) {
			g.Enter()
			defer g.Leave()
		}
		return 0, "", false
	})

	if code, out, errOut := siteRun(t, srv, "diff", dir); code != exitOK {
		t.Fatalf("diff: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for i, z := range zones {
		want := 0
		if i == 0 {
			want = 1
		}
		if c := srv.Requests(z.zone + pdnstest.MetadataSuffix); c.GET != want || c.Writes() != 0 {
			t.Errorf("diff: %s lock entries: %+v, want %d GET and no write", z.zone, c, want)
		}
		srv.ResetRequests(z.zone + pdnstest.MetadataSuffix)
	}

	// The writes of every zone but the first, which is taken alone.
	gauged = func(r *http.Request) bool { return r.Method == "PUT" && !strings.Contains(r.URL.Path, zones[0].zone) }
	g = locktest.NewGauge()
	if code, out, errOut := siteRun(t, srv, "apply", dir); code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if g.Most() < 2 {
		t.Errorf("apply took at most %d zones' lock entries at once, want several", g.Most())
	}
	for i, z := range zones {
		// The probe, then the first zone's claim, read, held, read, and
		// the release; every other zone is taken in one step (held,
		// read).
		want := pdnstest.Counts{GET: 2, PUT: 1, DELETE: 1}
		if i == 0 {
			want = pdnstest.Counts{GET: 3, PUT: 2, DELETE: 1}
		}
		if c := srv.Requests(z.zone + pdnstest.MetadataSuffix); c.GET != want.GET || c.PUT != want.PUT || c.DELETE != want.DELETE || c.POST+c.PATCH != 0 {
			t.Errorf("apply: %s lock entries: %+v, want %d GETs, %d PUTs, %d DELETE", z.zone, c, want.GET, want.PUT, want.DELETE)
		}
		if e := lockEntries(t, srv, z.zone); len(e) != 0 {
			t.Errorf("%s: entries left after the apply: %+v", z.zone, e)
		}
	}
}

// TestDiffReadsLocksWhileObserving: site diff reads the lock entries
// while it observes the zones, not before (one more round trip before
// the first observation, on every diff).
func TestDiffReadsLocksWhileObserving(t *testing.T) {
	srv := pdnsEnv(t)
	const zone = "office1.example.test."
	srv.CreateZone(t, zone)
	file := tenantFile(t, srv, "office1.example.test", `www: A: ["192.0.2.1"]`)
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

// TestNewZonesCostAListNotAReadEach: applying a tenant of 24 zones that
// do not exist yet reads at most lockReadsAtOnce zones' lock entries
// (the first zone found missing lists the server's zones, and the list
// answers for the rest), never reads a zone itself (the observation,
// after the lock is held, lists once more; each created zone is then
// observed from its POST's answer), and creates each with one POST.
// 200 new zones read their lock entries, then each zone, then each zone
// again after its POST: 600 reads, where this is 8 and two lists.
func TestNewZonesCostAListNotAReadEach(t *testing.T) {
	srv := pdnsEnv(t)
	zones := wwwZones("new%02d.office1.example.test.", 24)
	dir := multiTenant(t, srv, map[string][]zoneSpec{"office1": zones})
	if code, out, errOut := siteRun(t, srv, "apply", dir); code != exitOK {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	lockReads := 0
	for _, z := range zones {
		lockReads += srv.Requests(z.zone + pdnstest.MetadataSuffix).GET
		if c := srv.Requests(z.zone); c.GET != 0 {
			t.Errorf("%s: read %d times, want never (absent by the zone list, then the POST's answer)", z.zone, c.GET)
		}
	}
	if lockReads < 1 || lockReads > lockReadsAtOnce {
		t.Errorf("read the lock entries of %d zones, want 1 to %d (then the zone list)", lockReads, lockReadsAtOnce)
	}
	if c := srv.Requests(""); c.GET != 2 || c.POST != len(zones) {
		t.Errorf("zone lists and creations: %+v, want 2 lists (lock reads, observation) and %d POSTs", c, len(zones))
	}
	if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", dir); code != exitOK {
		t.Errorf("diff after apply: exit %d, want converged\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestDiffNotesAnApplyFromItsFirstZone: site diff learns that another
// run applies the tenant from the first zone of the tenant that exists
// (a missing one before it is skipped), since that run holds its lock
// in every zone or in none; the other zones' entries are not read.
func TestDiffNotesAnApplyFromItsFirstZone(t *testing.T) {
	srv := pdnsEnv(t)
	zones := wwwZones("z%d.office1.example.test.", 4)
	dir := multiTenant(t, srv, map[string][]zoneSpec{"office1": zones})
	// z0 does not exist; another run holds the lock in the rest.
	now := time.Now()
	holder := lock.Holder{ID: "OTHERRUN", Tenant: "office1", Host: "runner-b", PID: 7, Start: now, Command: "site apply", Expires: now.Add(time.Minute), State: lock.Held}
	for _, z := range zones[1:] {
		srv.CreateZone(t, z.zone)
		putLockEntry(t, srv, z.zone, holder)
		srv.ResetRequests(z.zone + pdnstest.MetadataSuffix)
	}
	code, out, errOut := siteRun(t, srv, "diff", dir)
	if code != exitOK || !strings.Contains(errOut, "note: tenant office1 is being applied now by host runner-b") {
		t.Errorf("diff: exit %d, want 0 and a note on the running apply\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for i, z := range zones {
		want := 0
		if i <= 1 { // z0 answers that it is missing, z1 tells
			want = 1
		}
		if c := srv.Requests(z.zone + pdnstest.MetadataSuffix); c.GET != want {
			t.Errorf("%s: %d reads of its lock entries, want %d", z.zone, c.GET, want)
		}
	}
}

// wwwZones is n zones named by format and their index, each wanting
// www A 192.0.2.1.
func wwwZones(format string, n int) []zoneSpec {
	zones := make([]zoneSpec, n)
	for i := range zones {
		zones[i] = zoneSpec{zone: fmt.Sprintf(format, i), records: `www: A: ["192.0.2.1"]`}
	}
	return zones
}

// TestUnlockNamesAHolderOnce: a holder of the lock in many zones is one
// line, with where; it printed one identical line per zone (40 for a
// tenant of 40 zones), and "not locked" listed every place looked in.
func TestUnlockNamesAHolderOnce(t *testing.T) {
	srv := pdnsEnv(t)
	zones, dir := office1Zones(t, srv, 5)
	if code, out, _ := siteRun(t, srv, "unlock", "office1", dir); code != exitOK ||
		!strings.Contains(out, "tenant office1 is not locked: no lock entry in PowerDNS zone z0.office1.example.test.") || strings.Contains(out, "))") || !strings.Contains(out, "and 2 more (5 places)") {
		t.Errorf("unlock of a free tenant: exit %d\n%s", code, out)
	}
	for _, z := range zones {
		putLockEntry(t, srv, z.zone, staleHolder())
	}
	code, out, errOut := siteRun(t, srv, "unlock", "office1", dir)
	if code != exitGated || strings.Count(out, "host crashed-runner, pid 7") != 1 || !strings.Contains(out, "and 2 more (5 places) (lease still running") ||
		!strings.Contains(errOut, "to break the lock, run: site unlock office1 "+dir+" --ack GATE-LOCK-BREAK") {
		t.Fatalf("unlock without --ack: exit %d, want 3 and the holder once, with its 5 places\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := siteRun(t, srv, "unlock", "office1", dir, "--ack", "GATE-LOCK-BREAK"); code != exitOK || !strings.Contains(out, "(5 entries)") {
		t.Fatalf("unlock --ack: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// staleHolder is a run that crashed holding office1's lock, its lease
// running for another hour.
func staleHolder() lock.Holder {
	return lock.Holder{ID: "STALE", Tenant: "office1", Host: "crashed-runner", PID: 7, Start: time.Now(),
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

// office1Zones creates n zones on srv, z0.office1.example.test. and on,
// and writes tenant office1 holding them; it returns the zones and the
// spec's directory.
func office1Zones(t *testing.T, srv *pdnstest.Server, n int) ([]zoneSpec, string) {
	t.Helper()
	zones := wwwZones("z%d.office1.example.test.", n)
	for _, z := range zones {
		srv.CreateZone(t, z.zone)
	}
	return zones, multiTenant(t, srv, map[string][]zoneSpec{"office1": zones})
}

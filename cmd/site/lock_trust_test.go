package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/site-tools/site/backends/lock"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// These tests are issue 27's lock findings, run as a pull request would
// attack: everything under tenants/ is the pull request's, and no lock
// state may live there.

// lockSpecs writes site.cue (PowerDNS srv, locks as given: a "locks:
// ..." line) and tenant's spec declaring zones, in dir/tenants, and
// returns dir.
func lockSpecs(t *testing.T, srv *pdnstest.Server, dir, tenant string, zones []string, locks string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "package tenants\n\ntenants: %s: {\n\tdomain: %q\n", tenant, zones[0])
	for _, z := range zones {
		fmt.Fprintf(&b, "\tdns: zones: %q: {provider: \"pdns\", ttl: 300, records: www: A: [\"192.0.2.1\"]}\n", z)
	}
	b.WriteString("}\n")
	site := siteSrc(pdnsProvider("pdns", srv.URL, "PDNS_API_KEY", srv.DNSAddr), grant{tenant: tenant, domains: []string{tenant + ".test"}, providers: []string{"pdns"}}) + locks + "\n"
	for name, src := range map[string]string{"site.cue": site, filepath.Join("tenants", tenant+".cue"): b.String()} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// treeSums are the checksums of every file under dir but skip, by path.
func treeSums(t *testing.T, dir, skip string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == skip {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = sha256.Sum256(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPlantedLockFilesAreNotRead: a pull request plants
// tenants/.newt.lock (an expired lock whose id is ../../../site.cue,
// with the directory tenants/.newt.lock.expired-.. that made the
// takeover delete site.cue) and tenants/.victim.lock, a symbolic link
// to /dev/zero (read to 23 GB). site reads nothing under tenants/ but
// specs: diff and apply succeed, every file outside tenants/ and the
// planted files stay as they were.
func TestPlantedLockFilesAreNotRead(t *testing.T) {
	srv := pdnsEnv(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	repo := t.TempDir()
	lockSpecs(t, srv, repo, "newt", []string{"newt.test"}, "")
	tenants := filepath.Join(repo, "tenants")
	planted, _ := json.Marshal(lock.Holder{ID: "../../../site.cue", Tenant: "newt", Host: "pr", Expires: time.Now().Add(-time.Hour), State: lock.Held})
	if err := os.WriteFile(filepath.Join(tenants, ".newt.lock"), planted, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(tenants, ".newt.lock.expired-.."), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(tenants, ".newt.lock.renew-0")); err != nil {
		t.Fatal(err)
	}
	before := treeSums(t, repo, "")
	for _, cmd := range []string{"diff", "apply", "diff"} {
		code, out, errOut := siteRun(t, srv, cmd, tenants)
		if code != exitOK {
			t.Fatalf("site %s: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, code, out, errOut)
		}
	}
	if got := treeSums(t, repo, ""); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("files changed:\nbefore %v\nafter  %v", before, got)
	}
	if got := srv.Query(t, "www.newt.test.", "A"); strings.Join(got, ",") != "300 192.0.2.1" {
		t.Errorf("www.newt.test. A = %q, want the apply's", got)
	}
}

// TestOneLockPerTenantWhateverItsSpecDeclares: tenant lk's zones
// a.lk.test and b.lk.test, declared by two specs (one each); while an
// apply of the first holds the lock (its PATCH held), an apply of the
// second is refused: every run of a tenant takes the same lock. Each
// took the lock of its own zone, and both ran.
func TestOneLockPerTenantWhateverItsSpecDeclares(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "a.lk.test.")
	srv.CreateZone(t, "b.lk.test.")
	locks := fmt.Sprintf("locks: dir: %q", filepath.Join(t.TempDir(), "locks"))
	specA := filepath.Join(lockSpecs(t, srv, t.TempDir(), "lk", []string{"a.lk.test"}, locks), "tenants")
	specB := filepath.Join(lockSpecs(t, srv, t.TempDir(), "lk", []string{"b.lk.test"}, locks), "tenants")
	patching, resume := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	first.Store(true)
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		if r.Method == "PATCH" && first.CompareAndSwap(true, false) {
			close(patching)
			<-resume
		}
		return 0, "", false
	})
	done := make(chan int)
	go func() {
		code, _, _ := siteRun(t, srv, "apply", specA)
		done <- code
	}()
	select {
	case <-patching:
	case code := <-done:
		t.Fatalf("apply A ended before its PATCH: exit %d", code)
	}
	code, out, errOut := siteRun(t, srv, "apply", specB)
	close(resume)
	if code != exitError || !strings.Contains(errOut, "tenant lk is being applied by another run") {
		t.Errorf("apply B while A holds the lock: exit %d, want 1 naming A\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if c := srv.Requests("b.lk.test."); c.Writes() != 0 {
		t.Errorf("apply B wrote b.lk.test.: %+v", c)
	}
	if code := <-done; code != exitOK {
		t.Errorf("apply A: exit %d", code)
	}
}

// TestLockCostsOneEntryForOneZoneOrMany: with the locks in one PowerDNS
// zone, a tenant of six zones takes, renews and releases its lock with
// the requests a tenant of one zone does, and no tenant zone's metadata
// is touched (an entry in every zone, renewed every 20 s, kept 800 PUTs
// in flight at 10,000 zones).
func TestLockCostsOneEntryForOneZoneOrMany(t *testing.T) {
	srv := pdnsEnv(t)
	const lockZone = "locks.test."
	srv.CreateZone(t, lockZone)
	locks := fmt.Sprintf("locks: powerdns: {provider: \"pdns\", zone: %q}", lockZone)
	var counts []pdnstest.Counts
	for _, n := range []int{1, 6} {
		var zones []string
		for i := range n {
			zones = append(zones, fmt.Sprintf("z%d.t%d.test", i, n))
		}
		tenant := fmt.Sprintf("t%d", n)
		dir := filepath.Join(lockSpecs(t, srv, t.TempDir(), tenant, zones, locks), "tenants")
		srv.ResetRequests(lockZone + pdnstest.MetadataSuffix)
		for _, cmd := range []string{"apply", "diff"} {
			if code, out, errOut := siteRun(t, srv, cmd, dir); code != exitOK {
				t.Fatalf("%s of %d zones: exit %d\nstdout:\n%s\nstderr:\n%s", cmd, n, code, out, errOut)
			}
		}
		counts = append(counts, srv.Requests(lockZone+pdnstest.MetadataSuffix))
		for _, z := range zones {
			if c := srv.Requests(z + "." + pdnstest.MetadataSuffix); c.GET+c.Writes() != 0 {
				t.Errorf("%s's metadata: %+v, want untouched", z, c)
			}
		}
		if e := lockEntries(t, srv, lockZone); len(e) != 0 {
			t.Errorf("entries left after the runs: %+v", e)
		}
	}
	if fmt.Sprint(counts[0]) != fmt.Sprint(counts[1]) || counts[0].PUT == 0 {
		t.Errorf("lock requests: one zone %+v, six zones %+v; want the same, and some", counts[0], counts[1])
	}
}

// TestLockedApplyFailsBeforeAnyRead: the second apply of a locked
// tenant fails at once, before it asks PowerDNS anything (it failed
// only after two slow reads).
func TestLockedApplyFailsBeforeAnyRead(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "z.held.test.")
	lockDir := filepath.Join(t.TempDir(), "locks")
	dir := filepath.Join(lockSpecs(t, srv, t.TempDir(), "held", []string{"z.held.test"}, fmt.Sprintf("locks: dir: %q", lockDir)), "tenants")
	other := lock.NewHolder("held", "site apply", time.Now())
	other.Expires, other.State = time.Now().Add(time.Hour), lock.Held
	plantLock(t, filepath.Join(lockDir, "held.lock"), other)
	var asked atomic.Int32
	srv.FailWhen(t, func(r *http.Request) (int, string, bool) {
		asked.Add(1)
		return 0, "", false
	})
	code, out, errOut := siteRun(t, srv, "apply", dir)
	if code != exitError || !strings.Contains(errOut, "tenant held is being applied by another run") {
		t.Errorf("apply of a locked tenant: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("apply of a locked tenant sent %d requests to PowerDNS first, want none", n)
	}
}

// plantLock writes h as the lock file at path.
func plantLock(t *testing.T, path string, h lock.Holder) {
	t.Helper()
	b, _ := json.Marshal(h)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestForgedHolderStaysOnOneLine: a holder's host and command are what
// the store says; with a newline and ::error:: in them, no line diff,
// apply or unlock prints may start a workflow command, from a lock
// file or from PowerDNS metadata.
func TestForgedHolderStaysOnOneLine(t *testing.T) {
	srv := pdnsEnv(t)
	srv.CreateZone(t, "z.forged.test.")
	const lockZone = "locks.test."
	srv.CreateZone(t, lockZone)
	lockDir := filepath.Join(t.TempDir(), "locks")
	forged := lock.NewHolder("forged", "site apply\n::error::forged command", time.Now())
	forged.Host, forged.State = "h\n::error::forged host", lock.Held
	for _, store := range []struct {
		name, locks string
		plant       func(h lock.Holder)
	}{
		{"lock file", fmt.Sprintf("locks: dir: %q", lockDir), func(h lock.Holder) { plantLock(t, filepath.Join(lockDir, "forged.lock"), h) }},
		{"PowerDNS metadata", fmt.Sprintf("locks: powerdns: {provider: \"pdns\", zone: %q}", lockZone), func(h lock.Holder) { putLockEntry(t, srv, lockZone, h) }},
	} {
		t.Run(store.name, func(t *testing.T) {
			dir := filepath.Join(lockSpecs(t, srv, t.TempDir(), "forged", []string{"z.forged.test"}, store.locks), "tenants")
			check := func(what string, want int, args ...string) {
				t.Helper()
				code, out, errOut := siteRun(t, srv, args...)
				if code != want {
					t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, code, want, out, errOut)
				}
				if !strings.Contains(out+errOut, `h\n::error::forged host`) {
					t.Errorf("%s: the holder is not shown escaped\nstdout:\n%s\nstderr:\n%s", what, out, errOut)
				}
				for _, line := range strings.Split(out+"\n"+errOut, "\n") {
					if strings.HasPrefix(strings.TrimSpace(line), "::") {
						t.Errorf("%s printed a workflow command: %q", what, line)
					}
				}
			}
			live := forged
			live.Expires = time.Now().Add(time.Hour)
			store.plant(live)
			check("diff", exitOK, "diff", dir)
			check("apply", exitError, "apply", dir)
			check("unlock", exitGated, "unlock", "forged", dir)
			check("unlock --ack", exitOK, "unlock", "forged", dir, "--ack", "GATE-LOCK-BREAK")
			dead := forged
			dead.Expires = time.Now().Add(-time.Hour)
			store.plant(dead)
			check("diff of a stale lock", exitOK, "diff", dir)
			check("apply over a stale lock", exitOK, "apply", dir)
		})
	}
}

// TestLockDirInsideTheRepositoryIsRefused: a lock directory at or below
// the directory of site.cue (the repository a pull request writes into)
// is refused before anything is read or written, and no lock file is
// made there.
func TestLockDirInsideTheRepositoryIsRefused(t *testing.T) {
	srv := pdnsEnv(t)
	repo := t.TempDir()
	inside := filepath.Join(repo, "tenants", ".locks")
	dir := filepath.Join(lockSpecs(t, srv, repo, "newt", []string{"newt.test"}, fmt.Sprintf("locks: dir: %q", inside)), "tenants")
	code, out, errOut := siteRun(t, srv, "apply", dir)
	if code != exitError || !strings.Contains(errOut, "lock directory "+inside+" is inside "+repo) || !strings.Contains(errOut, "\n  hint: check locks: dir") {
		t.Errorf("apply with the locks in the repository: exit %d, want 1 refusing it\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if _, err := os.Stat(inside); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made", inside, err)
	}
	if got := srv.Query(t, "www.newt.test.", "A"); len(got) != 0 {
		t.Errorf("the refused apply wrote www.newt.test.: %q", got)
	}
}

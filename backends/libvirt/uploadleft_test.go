//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/model"
)

// seedVM is a stopped VM web with one blank disk in pool and cloud-init
// user data; its seed goes into pool too.
func (r *rig) seedVM(pool *model.Pool, userData string) *model.VM {
	vm := r.stopped("web", pool, model.Disk{Pool: pool.Name, Name: "web-root", SizeBytes: 1 << 20})
	vm.CloudInit = &model.CloudInit{UserData: userData}
	return vm
}

// seedOf is the seed VM web gets from userData.
func seedOf(userData string) *seed.Seed {
	return seed.Build(seed.Input{Hostname: "web", UserData: userData})
}

// leftUpload puts into pool what an upload of s killed halfway leaves:
// half the volume (none when half is false) and its marker, which names
// the run by note.
func (r *rig) leftUpload(pool string, s *seed.Seed, half bool, note uploadmark.Note) {
	r.t.Helper()
	if half {
		r.upload(pool, s.Name, s.ISO[:len(s.ISO)/2])
	}
	r.upload(pool, uploadmark.Name(s.Name, 0), note.Bytes())
}

// elsewhere is the note of a run on another machine: only its beat
// tells whether it still uploads.
func elsewhere(tenant string) uploadmark.Note {
	return uploadmark.Note{Machine: "elsewhere", PID: 1, Boot: "another-kernel", PIDNS: "pid:[1]", Since: "2026-01-01T00:00:00Z", Tenant: tenant}
}

// TestLeftSeedUploadIsRemoved: a seed upload that did not finish (a
// killed apply) leaves its partial volume and its marker; once the VM's
// cloud-init changes, the seed's name changes, no step uploads the old
// one again, and the two stayed in the pool for good, unreported. The
// plan now removes what a run of the VM's own tenant left, on a line of
// its own, once no run holds the marker; never what another tenant's
// run left, nor what a marker that names no tenant (an older site's)
// marks, nor the seed the VM still names (that one is uploaded again).
func TestLeftSeedUploadIsRemoved(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	uploadmark.Beat = 20 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat })
	r.makePool(pool)
	var (
		own      = seedOf("#cloud-config\n# 1\n")
		ownBare  = seedOf("#cloud-config\n# 2\n") // the marker only: killed before the volume was made
		victims  = seedOf("#cloud-config\n# 3\n")
		older    = seedOf("#cloud-config\n# 4\n")
		current  = seedOf("#cloud-config\n# now\n")
		noTenant = elsewhere("")
	)
	r.leftUpload(pool.Name, own, true, elsewhere(tenant))
	r.leftUpload(pool.Name, ownBare, false, elsewhere(tenant))
	r.leftUpload(pool.Name, victims, true, elsewhere("victim"))
	r.leftUpload(pool.Name, older, true, noTenant)
	r.leftUpload(pool.Name, current, true, elsewhere(tenant))
	g := r.graph([]*model.VM{r.seedVM(pool, "#cloud-config\n# now\n")}, nil)
	obs, run := r.diff(g)
	vol := func(s *seed.Seed) string { return storage.VolumeKey(sessionHost, pool.Name, s.Name) }
	got := lines(obs.Plan)
	for _, tt := range []struct {
		what string
		line string
		want bool
	}{
		{"its tenant's partial seed", "none delete " + vol(own) + " [markers,volume]", true},
		{"its tenant's marker without a volume", "none delete " + vol(ownBare) + " [markers,volume]", true},
		{"another tenant's partial seed", vol(victims), false},
		{"a partial seed whose marker names no tenant", vol(older), false},
		{"the seed the VM names, uploaded again", "none create " + vol(current) + " [size]", true},
		{"the seed the VM names, not deleted", "none delete " + vol(current), false},
	} {
		found := slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, tt.line) })
		if found != tt.want {
			t.Errorf("%s: line %q in the plan is %v, want %v; plan:\n%s", tt.what, tt.line, found, tt.want, strings.Join(got, "\n"))
		}
	}
	for _, c := range obs.Plan.Changes {
		if c.Key == vol(own) && !strings.Contains(c.Reason, "another site run (pid 1 on elsewhere, since 2026-01-01T00:00:00Z)") {
			t.Errorf("the removal of %s says %q, want it to name the run that left it", own.Name, c.Reason)
		}
	}
	r.apply(g, obs, run)
	for _, tt := range []struct {
		name string
		want bool
	}{
		{own.Name, false}, {uploadmark.Name(own.Name, 0), false}, {uploadmark.Name(ownBare.Name, 0), false},
		{victims.Name, true}, {uploadmark.Name(victims.Name, 0), true},
		{older.Name, true}, {uploadmark.Name(older.Name, 0), true},
		{current.Name, true}, {uploadmark.Name(current.Name, 0), false},
	} {
		_, err := os.Stat(filepath.Join(pool.Path, tt.name))
		if there := err == nil; there != tt.want {
			t.Errorf("after the apply %s is in the pool: %v, want %v", tt.name, there, tt.want)
		}
	}
	r.converge(g)
}

// TestLeftSeedUploadOfALiveRunIsKept: a removal planned for a seed
// upload no spec names is carried out only when the upload's marker is
// stale by the rules every upload goes by. A run that still uploads
// that seed (an apply of an older checkout of the tenant) grows its
// marker: the apply waits, and when that run finishes, the seed is
// whole and kept.
func TestLeftSeedUploadOfALiveRunIsKept(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	// Long enough that a loaded machine does not make the other run's
	// marker look stale between two of its beats.
	uploadmark.Beat = 200 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat })
	r.makePool(pool)
	old := seedOf("#cloud-config\n# old\n")
	r.leftUpload(pool.Name, old, true, elsewhere(tenant))
	g := r.graph([]*model.VM{r.seedVM(pool, "#cloud-config\n# new\n")}, nil)
	obs, run := r.diff(g)

	// The other run goes on uploading: its marker grows.
	p, err := r.conn().LookupStoragePoolByName(pool.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	mark, err := p.LookupStorageVolByName(uploadmark.Name(old.Name, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer mark.Free()
	other := &storage.Writer{Set: r.d.Set, C: r.conn(), Host: r.host, Run: runstate.Start(backends.NewRun())}
	_, stopBeat := other.Beat(mark)
	defer stopBeat()

	said := make(chan string, 100)
	run.Progress = func(line string) {
		select {
		case said <- line:
		default:
		}
	}
	done := make(chan error, 1)
	go func() {
		rep, err := r.tryApply(g, obs, run)
		for _, s := range rep.Steps {
			if err == nil && len(s.Problems) > 0 {
				err = errors.New(s.Step + ": " + strings.Join(s.Problems, "; ") + " " + s.Reason)
			}
		}
		done <- err
	}()
	for waiting := true; waiting; {
		select {
		case line := <-said:
			waiting = !strings.Contains(line, "is uploading "+pool.Name+"/"+old.Name)
		case err := <-done:
			t.Fatalf("the apply ended (%v) without waiting for the run that uploads %s", err, old.Name)
		}
	}
	// The other run finishes: the last byte, then its marker goes, which
	// ends its beat.
	f, err := os.OpenFile(filepath.Join(pool.Path, old.Name), os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("the volume the other run uploads into is gone while it uploads: %v", err)
	}
	if _, err := f.Write(old.ISO); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mark.Delete(0); err != nil {
		t.Fatal(err)
	}
	stopBeat()
	if err := <-done; err != nil {
		t.Fatalf("apply: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(pool.Path, old.Name)); err != nil || string(got) != string(old.ISO) {
		t.Errorf("%s, which the other run finished uploading, is not whole after the apply (err %v)", old.Name, err)
	}
}

// TestSeedMarkerNamesItsTenant: a seed's upload marker names the tenant
// whose VM the seed is, so that a later run of that tenant can tell the
// upload it left from another tenant's.
func TestSeedMarkerNamesItsTenant(t *testing.T) {
	r, pool := storageRig(t)
	t.Cleanup(func() { storage.UploadStage = func(string) {} })
	r.makePool(pool)
	s := seedOf("#cloud-config\n")
	var note uploadmark.Note
	var read error
	storage.UploadStage = func(stage string) {
		if stage != "create" {
			return
		}
		var b []byte
		if b, read = os.ReadFile(filepath.Join(pool.Path, uploadmark.Name(s.Name, 0))); read == nil {
			note = uploadmark.ParseNote(b)
		}
	}
	g := r.graph([]*model.VM{r.seedVM(pool, "#cloud-config\n")}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if read != nil || note.Tenant != tenant {
		t.Errorf("the marker of the seed upload names tenant %q (read: %v), want %q", note.Tenant, read, tenant)
	}
}

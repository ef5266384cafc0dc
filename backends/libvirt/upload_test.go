//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestUploadSaysProgressAndStopsAtInterrupt: a long upload says how far
// it got while the bytes flow (the walkthrough saw only "waiting for
// libvirt host … to answer StorageVolUpload", which read as a hung
// host), and the run's first interrupt stops it between two chunks
// instead of sending the rest: the partial volume and its marker are
// deleted, the step is not reported applied, and the next plan uploads
// the image again.
func TestUploadSaysProgressAndStopsAtInterrupt(t *testing.T) {
	r, pool := storageRig(t)
	every := storage.UploadProgressEvery
	storage.UploadProgressEvery = 10 * time.Millisecond
	t.Cleanup(func() { storage.UploadProgressEvery = every })
	src := filepath.Join(t.TempDir(), "big.raw")
	if err := os.WriteFile(src, pattern(256<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 256 << 20, Base: "big.raw"})
	vm.Images = []*model.Image{{Pool: pool, Name: "big.raw", Source: src}}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	said := make(chan string, 1000)
	run.Progress = func(line string) {
		select {
		case said <- line:
		default:
		}
	}
	type result struct {
		rep *engine.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := r.tryApply(g, obs, run)
		done <- result{rep, err}
	}()
	var res result
	for waiting := true; waiting; {
		select {
		case line := <-said:
			if !strings.HasPrefix(line, "uploading images/big.raw to libvirt host qemu:///session") || !strings.Contains(line, " of 256.0 MiB sent (") {
				t.Fatalf("progress line %q does not say what is uploaded where and how far it got", line)
			}
			waiting = false
		case res = <-done:
			t.Fatalf("the apply ended (%v) without saying how far its upload got", res.err)
		}
	}
	runstate.Interrupts(run).Interrupt()
	res = <-done
	var img *engine.StepReport
	for i, s := range res.rep.Steps {
		if s.Step == "image/qemu:///session/images/big.raw" {
			img = &res.rep.Steps[i]
		}
	}
	if img == nil || img.Status == engine.StatusApplied || !strings.Contains(img.Reason, "stopped at the interrupt") || !strings.Contains(img.Reason, "the partial volume was deleted") {
		t.Fatalf("image step after the interrupt: %+v; want it stopped, saying so and that the partial volume is gone", img)
	}
	for _, name := range []string{"big.raw", uploadmark.UploadingName("big.raw")} {
		if _, err := os.Stat(filepath.Join(pool.Path, name)); !os.IsNotExist(err) {
			t.Errorf("%s is in the pool after the interrupted upload (stat: %v)", name, err)
		}
	}
	again, _ := r.diff(g)
	if l := lines(again.Plan); len(l) == 0 || !strings.Contains(strings.Join(l, "\n"), "none create volume/qemu:///session/images/big.raw") {
		t.Errorf("after the interrupted upload the plan is %q, want big.raw uploaded again", l)
	}
}

// TestUploadingNameFitsAFileName: the marker of an upload never
// collides with a name vet allows (those start with a letter or digit)
// and fits in a file name, however long the volume's name.
func TestUploadingNameFitsAFileName(t *testing.T) {
	long := strings.Repeat("a", 255)
	for _, tt := range []struct{ name, want string }{
		{"big.raw", ".big.raw.uploading"},
		{long, ".uploading-"},
	} {
		got := uploadmark.UploadingName(tt.name)
		if !strings.HasPrefix(got, tt.want) || len(got) > 255 {
			t.Errorf("uploadmark.UploadingName(%q) = %q, want %q… of at most 255 bytes", tt.name, got, tt.want)
		}
	}
	if uploadmark.UploadingName(long) == uploadmark.UploadingName(long[1:]) {
		t.Error("two long names share a marker")
	}
}

// TestStaleUploadIsTakenOver: markers whose runs ran elsewhere (so no
// process can be asked) and that stop growing are stale: after
// uploadmark.StaleAfter the apply takes the upload over with a marker of the next
// generation, deletes the partial volume and every older marker, and
// uploads the image whole; the plan before names the markers.
func TestStaleUploadIsTakenOver(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	uploadmark.Beat = 20 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat })
	img := pattern(4 << 20)
	src := filepath.Join(t.TempDir(), "big.raw")
	if err := os.WriteFile(src, img, 0o644); err != nil {
		t.Fatal(err)
	}
	r.makePool(pool)
	elsewhere := uploadmark.Note{Machine: "elsewhere", PID: 1, Boot: "another-kernel", PIDNS: "pid:[1]", Since: "2026-01-01T00:00:00Z"}
	r.upload("images", "big.raw", img[:1<<20])
	r.upload("images", uploadmark.Name("big.raw", 0), elsewhere.Bytes())
	r.upload("images", uploadmark.Name("big.raw", 1), elsewhere.Bytes())
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 8 << 20, Base: "big.raw"})
	vm.Images = []*model.Image{{Pool: pool, Name: "big.raw", Source: src}}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	var plan string
	for _, c := range obs.Plan.Changes {
		if c.Key == storage.VolumeKey(sessionHost, "images", "big.raw") {
			plan = c.Reason
		}
	}
	if !strings.Contains(plan, "its marker .big.raw.uploading, .big.raw.uploading.1 is beside it") {
		t.Errorf("the plan for big.raw says %q, want it to name both markers", plan)
	}
	var said []string
	run.Progress = func(line string) { said = append(said, line) }
	r.apply(g, obs, run)
	if got, err := os.ReadFile(filepath.Join(pool.Path, "big.raw")); err != nil || !bytes.Equal(got, img) {
		t.Fatalf("big.raw after the apply is not the image (err %v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(pool.Path, ".big.raw.uploading*")); len(left) > 0 {
		t.Errorf("markers left in the pool: %v", left)
	}
	if s := strings.Join(said, "\n"); !strings.Contains(s, "another site run (pid 1 on elsewhere, since 2026-01-01T00:00:00Z) left it unfinished: its marker has not grown for 60ms; this run takes it over (marker .big.raw.uploading.2)") {
		t.Errorf("the apply said:\n%s\nwant it to say whose upload it took over, why and under which marker", s)
	}
	r.converge(g)
}

// TestUploadBeatsBeforeItCreatesTheVolume: a run's marker grows from
// the moment the run holds it, not only once the volume is created. On
// a slow host, creating the volume (libvirt allocates a raw volume in
// full when no allocation is given) or deleting what a stale upload
// left can take longer than uploadmark.StaleAfter; the marker did not grow
// meanwhile, and a second apply took the live upload over, so both
// failed ("took the upload over while this run was paused") and the
// image was uploaded again. The hook stands for that slow create: it
// waits there until the marker grew.
func TestUploadBeatsBeforeItCreatesTheVolume(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	uploadmark.Beat = 20 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat; storage.UploadStage = func(string) {} })
	img := pattern(1 << 20)
	src := filepath.Join(t.TempDir(), "big.raw")
	if err := os.WriteFile(src, img, 0o644); err != nil {
		t.Fatal(err)
	}
	r.makePool(pool)
	grew := false
	storage.UploadStage = func(stage string) {
		if stage != "create" || grew {
			return
		}
		// A bounded wait for an event, not a timing: the marker grows
		// within a beat (20 ms) or never.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !grew; time.Sleep(uploadmark.Beat) {
			info, err := os.Stat(filepath.Join(pool.Path, uploadmark.UploadingName("big.raw")))
			grew = err == nil && info.Size() > uploadmark.NoteSize
		}
	}
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 8 << 20, Base: "big.raw"})
	vm.Images = []*model.Image{{Pool: pool, Name: "big.raw", Source: src}}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	r.apply(g, obs, run)
	if !grew {
		t.Error("the marker did not grow while the run was about to create the volume: another run would take the live upload for stale")
	}
	if got, err := os.ReadFile(filepath.Join(pool.Path, "big.raw")); err != nil || !bytes.Equal(got, img) {
		t.Fatalf("big.raw after the apply is not the image (err %v)", err)
	}
}

// TestTakenOverBeforeCleanupDeletesNothing: a run that took a stale
// upload over (marker .1) and was then paused past uploadmark.StaleAfter before it
// deleted what the stale upload left has lost the upload to a newer
// marker (.2): the volume is that run's now. It deleted it anyway (and
// the older markers) and uploaded into a fresh one, under the new
// holder's upload; it now sees the newer marker first, deletes nothing
// and says to apply again.
func TestTakenOverBeforeCleanupDeletesNothing(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	uploadmark.Beat = 20 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat; storage.UploadStage = func(string) {} })
	img := pattern(4 << 20)
	src := filepath.Join(t.TempDir(), "big.raw")
	if err := os.WriteFile(src, img, 0o644); err != nil {
		t.Fatal(err)
	}
	r.makePool(pool)
	elsewhere := uploadmark.Note{Machine: "elsewhere", PID: 1, Boot: "another-kernel", PIDNS: "pid:[1]", Since: "2026-01-01T00:00:00Z"}
	partial := img[:1<<20]
	r.upload("images", "big.raw", partial)
	r.upload("images", uploadmark.Name("big.raw", 0), elsewhere.Bytes())
	newer := uploadmark.Note{Machine: "other", PID: 2, Boot: "a-third-kernel", PIDNS: "pid:[1]", Since: "2026-01-01T00:01:00Z"}
	storage.UploadStage = func(stage string) {
		if stage == "cleanup" {
			r.upload("images", uploadmark.Name("big.raw", 2), newer.Bytes())
		}
	}
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 8 << 20, Base: "big.raw"})
	vm.Images = []*model.Image{{Pool: pool, Name: "big.raw", Source: src}}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	rep, _ := r.tryApply(g, obs, run)
	var reason string
	for _, s := range rep.Steps {
		if s.Step == "image/"+sessionHost+"/images/big.raw" {
			reason = s.Reason
		}
	}
	if !strings.Contains(reason, "another site run (pid 2 on other, since 2026-01-01T00:01:00Z) took the upload into images/big.raw over") {
		t.Errorf("the image step says %q, want it to name the run that took the upload over", reason)
	}
	if got, err := os.ReadFile(filepath.Join(pool.Path, "big.raw")); err != nil || !bytes.Equal(got, partial) {
		t.Errorf("big.raw, the newer holder's now, was changed (err %v)", err)
	}
	for _, m := range []string{uploadmark.Name("big.raw", 0), uploadmark.Name("big.raw", 2)} {
		if _, err := os.Stat(filepath.Join(pool.Path, m)); err != nil {
			t.Errorf("marker %s, which only the newer holder deletes, is gone: %v", m, err)
		}
	}
}

// TestMarkerBeatGrowsIt: a marker's beat makes it grow, as the runs
// waiting on it measure. A 512-byte marker takes a whole block of the
// file system (4 KiB), and libvirt refuses a capacity below a volume's
// allocation ("can't shrink capacity below existing allocation"), so
// every beat from 513 bytes on failed, unseen: no marker ever grew, and
// every live upload longer than uploadmark.StaleAfter was taken over by the next
// run that came to upload it.
func TestMarkerBeatGrowsIt(t *testing.T) {
	r, pool := storageRig(t)
	beat := uploadmark.Beat
	uploadmark.Beat = 20 * time.Millisecond
	t.Cleanup(func() { uploadmark.Beat = beat })
	r.makePool(pool)
	a := &storage.Writer{Set: r.d.Set, C: r.conn(), Host: r.host, Run: runstate.Start(backends.NewRun())}
	p, err := r.conn().LookupStoragePoolByName(pool.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Free()
	m := uploadmark.Marker{Name: uploadmark.UploadingName("big.raw")}
	mark, err := a.CreateMarker(p, pool.Name, m, "images/big.raw")
	if err != nil || mark == nil {
		t.Fatalf("createMarker: %v", err)
	}
	defer mark.Free()
	info, err := mark.GetInfo()
	if err != nil {
		t.Fatal(err)
	}
	lost, stop := a.Beat(mark)
	defer stop()
	// A bounded wait for an event, not a timing: it grows within a
	// beat or two, or never.
	grown := info.Capacity
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && grown == info.Capacity; time.Sleep(uploadmark.Beat) {
		now, err := mark.GetInfo()
		if err != nil {
			t.Fatal(err)
		}
		grown = now.Capacity
	}
	if grown == info.Capacity {
		t.Errorf("the marker stayed at %d bytes through its beats: runs waiting on it take it for stale", grown)
	}
	if lost() {
		t.Error("the beat reports its marker lost, which is there")
	}
}

// TestInterruptedSeedUploadIsNotReportedNotStarted: a VM step stopped
// at the interrupt while it uploads its cloud-init seed has defined the
// domain and made its disk already: the report must not call it
// "skipped" (not tried), as it does a step that wrote nothing.
func TestInterruptedSeedUploadIsNotReportedNotStarted(t *testing.T) {
	r, pool := storageRig(t)
	t.Cleanup(func() { storage.UploadStage = func(string) {} })
	r.makePool(pool)
	vm := r.stopped("web", pool, model.Disk{Pool: "images", Name: "web-root", SizeBytes: 8 << 20})
	vm.CloudInit = &model.CloudInit{UserData: "#cloud-config\n"}
	g := r.graph([]*model.VM{vm}, nil)
	obs, run := r.diff(g)
	storage.UploadStage = func(stage string) {
		if stage == "create" {
			runstate.Interrupts(run).Interrupt() // Ctrl-C as the seed's upload begins
		}
	}
	rep, err := r.tryApply(g, obs, run)
	if err != nil {
		t.Fatal(err)
	}
	var step *engine.StepReport
	for i, s := range rep.Steps {
		if s.Step == graph.VMStepID(r.host, "web") {
			step = &rep.Steps[i]
		}
	}
	if step == nil || !strings.Contains(step.Reason, "stopped at the interrupt") {
		t.Fatalf("VM step after the interrupt: %+v; want it stopped at the interrupt (the case does not do what it says)", step)
	}
	if r.domain("web").Inactive == nil {
		t.Fatal("domain web is not defined: the step wrote nothing before the upload")
	}
	if step.Status == engine.StatusSkipped || step.Status == engine.StatusApplied {
		t.Errorf("VM step reported %q (%s), but it defined the domain and made its disk before it stopped", step.Status, step.Reason)
	}
}

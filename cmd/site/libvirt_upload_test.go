//go:build cgo && libvirt_dlopen

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/site-tools/site/backends/libvirt"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

// uploadSpec declares pool vp and image big.raw (from img) on a session
// daemon, and a VM whose disk starts from it.
func uploadSpec(t *testing.T, s *libvirttest.Session, img string) (spec, pool string) {
	pool = filepath.Join(s.Dir, "vp")
	spec = writeSpec(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: vp: {type: "dir", path: "`+pool+`"}, images: "big.raw": {pool: "vp", source: "`+img+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}}),
		"lab.cue", `package tenants

tenants: lab: {
	domain: "lab.example.test"
	vms: g1: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "vp", name: "g1-root", size: "512MiB", base: "big.raw"}]
	}
}
`)
	return spec, pool
}

// bigImage writes an image of n bytes that no prefix of zeros matches,
// so a half-uploaded copy differs from it, and returns its SHA-256. It
// is written, and later compared, a chunk at a time: the package's
// other tests run site in this process, and its evaluation budget
// counts this process's heap, which two 256 MiB images held whole (and
// the volume read back beside them) pushed past 1 GiB.
func bigImage(t *testing.T, n int) (string, string) {
	t.Helper()
	img := filepath.Join(t.TempDir(), "big.raw")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	w := io.MultiWriter(f, h)
	chunk := make([]byte, 1<<20)
	for off := 0; off < n; off += len(chunk) {
		c := chunk[:min(len(chunk), n-off)]
		for j := range c {
			i := off + j
			c[j] = byte(i*7 + i/4096 + 1)
		}
		if _, err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return img, hex.EncodeToString(h.Sum(nil))
}

// fileDigest is the SHA-256 of the file at name, read a chunk at a time.
func fileDigest(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// TestKilledImageUploadIsUploadedAgain is the walkthrough's crash: site
// apply is killed (SIGKILL: nothing of it runs on the way out) while it
// streams a base image into its volume. The volume is there, with part
// of the image in it. site diff must not take it for the image: it plans
// the upload again, and the next apply (after breaking the dead run's
// lock, as it says) replaces it with the whole file.
func TestKilledImageUploadIsUploadedAgain(t *testing.T) {
	sitePath := siteProcess(t)
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	img, want := bigImage(t, 256<<20)
	spec, pool := uploadSpec(t, s, img)
	site := specRunner(t, spec)
	site(exitOK, "apply", "--only", "storage", "--target", "pool/qemu:///session/vp")

	var out bytes.Buffer
	cmd := exec.Command(sitePath, "apply", spec)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	vol := filepath.Join(pool, "big.raw")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		if _, err := os.Stat(vol); err == nil {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("site apply ended before its upload began (%v):\n%s", err, out.String())
		case <-time.After(time.Millisecond):
		}
	}
	_ = cmd.Process.Kill()
	<-exited
	if got, err := fileDigest(vol); err != nil || got == want {
		t.Fatalf("the upload finished before the kill (err %v): this test needs a larger image", err)
	}

	diff := site(exitChanges, "diff", "--detailed-exitcode")
	if !strings.Contains(diff, "+ volume/qemu:///session/vp/big.raw") {
		t.Fatalf("after a killed upload, diff does not plan to upload big.raw again:\n%s", diff)
	}
	site(exitOK, "unlock", "lab", "--ack", "GATE-LOCK-BREAK")
	site(exitOK, "apply")
	if got, err := fileDigest(vol); err != nil || got != want {
		t.Fatalf("after apply, big.raw in the pool is not the image (err %v)", err)
	}
	site(exitOK, "diff", "--detailed-exitcode")
}

// TestTwoAppliesShareAnImageUpload: two tenants' VMs start from one
// base image, and their applies run at once (each holds only its own
// tenant's lock). The second must not take the first's upload, still
// going, for one that did not finish: deleting it and uploading anew
// would let the first's end remove the marker of the second's upload,
// and a third run take a partial volume for the image. It waits for
// the first to finish and uploads nothing. The first run is stopped
// (SIGSTOP) mid-upload until the second says it waits, so "at once" is
// a fact, not a matter of timing; it beats again as soon as it goes on.
func TestTwoAppliesShareAnImageUpload(t *testing.T) {
	sitePath := siteProcess(t)
	s := libvirttest.StartSession(t)
	t.Setenv(libvirt.URIMapEnv, "qemu:///session="+s.URI)
	t.Setenv("NO_COLOR", "1")
	img, want := bigImage(t, 256<<20)
	pool := filepath.Join(s.Dir, "vp")
	tenant := func(name string) string {
		return `package tenants

tenants: ` + name + `: {
	domain: "` + name + `.example.test"
	vms: ` + name + `vm: {
		host:      "local"
		autostart: false
		running:   false
		memory:    "64MiB"
		disks: [{pool: "vp", name: "` + name + `-root", size: "512MiB", base: "big.raw"}]
	}
}
`
	}
	dir := writeSpecs(t, siteSrc(`hosts: local: {uri: "qemu:///session", pools: vp: {type: "dir", path: "`+pool+`"}, images: "big.raw": {pool: "vp", source: "`+img+`"}}`,
		grant{tenant: "lab", domains: []string{"lab.example.test"}, hosts: []string{"local"}},
		grant{tenant: "lab2", domains: []string{"lab2.example.test"}, hosts: []string{"local"}}),
		map[string]string{"lab.cue": tenant("lab"), "lab2.cue": tenant("lab2")})
	specRunner(t, filepath.Join(dir, "lab.cue"))(exitOK, "apply", "--only", "storage", "--target", "pool/qemu:///session/vp")

	start := func(tenant string) (*exec.Cmd, *watchBuffer, chan struct{}, *error) {
		out := &watchBuffer{changed: make(chan struct{})}
		cmd := exec.Command(sitePath, "apply", filepath.Join(dir, tenant+".cue"))
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done, res := make(chan struct{}), new(error)
		go func() { *res = cmd.Wait(); close(done) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
		return cmd, out, done, res
	}
	first, firstOut, firstDone, firstErr := start("lab")
	vol := filepath.Join(pool, "big.raw")
	for {
		if _, err := os.Stat(vol); err == nil {
			break
		}
		select {
		case <-firstDone:
			t.Fatalf("the first apply ended before its upload began (%v):\n%s", *firstErr, firstOut.String())
		case <-time.After(time.Millisecond):
		}
	}
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_, secondOut, secondDone, secondErr := start("lab2")
	waits := secondOut.waitFor("is uploading vp/big.raw", secondDone)
	if err := first.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if !waits {
		<-firstDone
		t.Fatalf("the second apply did not wait for the first's upload (exit %v):\n%s\nfirst apply (exit %v):\n%s", *secondErr, secondOut.String(), *firstErr, firstOut.String())
	}
	<-firstDone
	<-secondDone
	if *firstErr != nil || *secondErr != nil {
		t.Fatalf("first apply: %v\n%s\nsecond apply: %v\n%s", *firstErr, firstOut.String(), *secondErr, secondOut.String())
	}
	if !strings.Contains(secondOut.String(), "vp/big.raw was uploaded by another run") {
		t.Errorf("the second apply does not say the other run uploaded the image:\n%s", secondOut.String())
	}
	if got, err := fileDigest(vol); err != nil || got != want {
		t.Fatalf("after both applies, big.raw in the pool is not the image (err %v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(pool, ".big.raw.uploading*")); len(left) > 0 {
		t.Errorf("markers left in the pool after both uploads finished: %v", left)
	}
	specRunner(t, filepath.Join(dir, "lab2.cue"))(exitOK, "diff", "--detailed-exitcode")
}

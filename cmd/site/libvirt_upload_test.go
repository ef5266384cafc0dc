package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// so a half-uploaded copy differs from it.
func bigImage(t *testing.T, n int) (string, []byte) {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/4096 + 1)
	}
	img := filepath.Join(t.TempDir(), "big.raw")
	if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return img, b
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
	if got, err := os.ReadFile(vol); err != nil || bytes.Equal(got, want) {
		t.Fatalf("the upload finished before the kill (err %v): this test needs a larger image", err)
	}

	diff := site(exitChanges, "diff", "--detailed-exitcode")
	if !strings.Contains(diff, "+ volume/qemu:///session/vp/big.raw") {
		t.Fatalf("after a killed upload, diff does not plan to upload big.raw again:\n%s", diff)
	}
	site(exitOK, "unlock", "lab", "--ack", "GATE-LOCK-BREAK")
	site(exitOK, "apply")
	if got, err := os.ReadFile(vol); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after apply, big.raw in the pool is not the image (err %v)", err)
	}
	site(exitOK, "diff", "--detailed-exitcode")
}

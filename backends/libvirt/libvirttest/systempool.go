package libvirttest

import (
	"os"
	"strconv"
	"testing"
)

// Pool creates a transient dir storage pool named s.Name(base) in a
// directory of its own that QEMU, which runs as libvirt-qemu, can reach,
// and returns the pool's name and directory. Destroying the pool when
// the test ends removes it from the daemon; the directory goes with it.
func (s *System) Pool(t testing.TB, base string) (name, dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "site-syspool-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name = s.Name(base)
	if _, err := s.Virsh("pool-create-as", name, "dir", "--target", dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.virsh("pool-destroy", name) })
	return name, dir
}

// Upload creates volume name in pool, sized and filled from the file at
// path (StorageVolUpload through virsh, as an operator would seed a base
// image).
func (s *System) Upload(t testing.TB, pool, name, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Virsh("vol-create-as", pool, name, strconv.FormatInt(fi.Size(), 10)+"b", "--format", "raw"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Virsh("vol-upload", "--pool", pool, name, path); err != nil {
		t.Fatal(err)
	}
}

// removePools stops and undefines every storage pool named with
// s.Prefix that a test left behind (Pool's own cleanup did not run: the
// test died). The daemon keeps a transient pool's state in the host's
// /run/libvirt, so the next daemon would find it again.
func (s *System) removePools() {
	for _, name := range s.virshNames("pool-list", "--all", "--name") {
		s.virsh("pool-destroy", name)
		s.virsh("pool-undefine", name)
	}
}

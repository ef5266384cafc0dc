package libvirttest

import (
	"crypto/sha256"
	"debug/elf"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The boot image is the smallest guest that does what the tests need of
// a real one: it boots from its disk, reads its NoCloud seed and takes a
// DHCP lease under the seed's hostname. It is made of Debian packages:
// the kernel of linux-image-cloud-amd64, an initramfs holding
// busybox-static, the init script below and the kernel modules it needs,
// and syslinux on a FAT file system (built with mtools, so no loop
// device and no mount).

//go:embed bootimage/init.sh
var bootInit []byte

//go:embed bootimage/dhcp-event.sh
var bootDHCPEvent []byte

// bootModules are the drivers the init needs that the cloud kernel has
// only as modules: the NIC, the seed's cdrom (site attaches it on
// virtio-scsi) and ISO 9660. Their dependencies are added from
// modules.dep.
var bootModules = []string{"virtio_pci", "virtio_net", "virtio_scsi", "sr_mod", "isofs", "virtio_balloon"}

// bootImageVersion is hashed into the cache key: bump it when the
// image's layout changes in a way the inputs do not show.
const bootImageVersion = "site-boot-1"

var bootOnce struct {
	sync.Once
	path string
	err  error
	need string // a missing prerequisite: skip (fail in CI)
}

// BootImage returns the path of a raw disk image that boots a guest as
// described above. It is built once per test process and cached in the
// user cache directory under a name made of the kernel package's
// version and a hash of everything else that goes in, so reruns reuse
// it. Missing packages skip the test (fail it in CI) with what to
// install.
func BootImage(t testing.TB) string {
	t.Helper()
	bootOnce.Do(func() { bootOnce.path, bootOnce.need, bootOnce.err = buildBootImage() })
	if bootOnce.need != "" {
		Need(t, bootOnce.need)
	}
	if bootOnce.err != nil {
		t.Fatalf("boot image: %v", bootOnce.err)
	}
	return bootOnce.path
}

// bootInputs are the host files a boot image is made of.
type bootInputs struct {
	kernel, release, pkgVersion string
	busybox                     string
	modules                     []string // paths relative to /lib/modules/<release>, dependencies first
}

func findBootInputs() (*bootInputs, string) {
	const pkgs = "install linux-image-cloud-amd64 busybox-static syslinux mtools dosfstools (make deps does)"
	// The kernel is the one the metapackage depends on now, e.g.
	// "linux-image-6.1.0-57-cloud-amd64 (= 6.1.192-3)": older ones may
	// still be installed beside it.
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Depends}", "linux-image-cloud-amd64").Output()
	if err != nil {
		return nil, fmt.Sprintf("linux-image-cloud-amd64 is not installed (dpkg-query: %v): %s", err, pkgs)
	}
	in := &bootInputs{}
	dep := strings.TrimSpace(strings.Split(string(out), ",")[0])
	name, version, _ := strings.Cut(dep, " ")
	in.release = strings.TrimPrefix(name, "linux-image-")
	in.pkgVersion = strings.Trim(version, "(=) ")
	in.kernel = "/boot/vmlinuz-" + in.release
	if _, err := os.Stat(in.kernel); err != nil || in.pkgVersion == "" {
		return nil, fmt.Sprintf("linux-image-cloud-amd64 depends on %q, but there is no %s: %s", dep, in.kernel, pkgs)
	}
	for _, bin := range []string{"busybox", "syslinux", "mkfs.vfat", "mcopy"} {
		if _, err := lookPath(bin); err != nil {
			return nil, bin + " not found: " + pkgs
		}
	}
	in.busybox, _ = lookPath("busybox")
	if f, err := elf.Open(in.busybox); err == nil {
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				return nil, in.busybox + " is dynamically linked and cannot run alone in an initramfs: " + pkgs
			}
		}
	}
	mods, err := moduleClosure("/lib/modules/"+in.release, bootModules)
	if err != nil {
		return nil, fmt.Sprintf("kernel modules of %s: %v: %s", in.release, err, pkgs)
	}
	in.modules = mods
	return in, ""
}

// moduleClosure reads modules.dep and returns the files of the named
// modules and of everything they depend on, each after its
// dependencies, in the order insmod must load them.
func moduleClosure(dir string, names []string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "modules.dep"))
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	byName := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		file, rest, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		deps[file] = strings.Fields(rest)
		base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		byName[strings.ReplaceAll(base, "-", "_")] = file
	}
	var order []string
	seen := map[string]bool{}
	var visit func(string)
	visit = func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, d := range deps[f] {
			visit(d)
		}
		order = append(order, f)
	}
	for _, n := range names {
		f, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("module %s not in modules.dep (built in, or another kernel flavour?)", n)
		}
		visit(f)
	}
	return order, nil
}

// cacheKey hashes everything that goes into the image but the kernel,
// which its package version names.
func (in *bootInputs) cacheKey() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", bootImageVersion, bootInit, bootDHCPEvent, syslinuxCfg, strings.Join(in.modules, " "))
	f, err := os.Open(in.busybox)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return in.release + "_" + in.pkgVersion + "-" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func buildBootImage() (path, need string, err error) {
	in, need := findBootInputs()
	if need != "" {
		return "", need, nil
	}
	key, err := in.cacheKey()
	if err != nil {
		return "", "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", fmt.Errorf("no cache directory for the boot image (set HOME or XDG_CACHE_HOME): %w", err)
	}
	dir := filepath.Join(cache, "site-tests")
	path = filepath.Join(dir, "boot-"+key+".img")
	if _, err := os.Stat(path); err == nil {
		return path, "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(work)
	img, err := in.writeImage(work)
	if err != nil {
		return "", "", err
	}
	// Rename is atomic: a concurrent test process sees a whole image or
	// none.
	return path, "", os.Rename(img, path)
}

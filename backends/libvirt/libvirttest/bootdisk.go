package libvirttest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// How the boot image's pieces are put together: the initramfs as a
// newc cpio archive written here (no cpio binary, no root-owned files
// needed), the disk as a FAT file system made and filled with
// dosfstools and mtools and made bootable with syslinux, all on plain
// files.

// bootImageMiB is the disk's size: the cloud kernel and the initramfs
// take about 10 MiB.
const bootImageMiB = 32

const syslinuxCfg = `DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL vmlinuz
  INITRD initrd.gz
  APPEND console=tty0 console=ttyS0 panic=-1
`

// writeImage builds the disk image in work and returns its path.
func (in *bootInputs) writeImage(work string) (string, error) {
	initrd, err := in.initramfs()
	if err != nil {
		return "", err
	}
	files := map[string][]byte{"initrd.gz": initrd, "syslinux.cfg": []byte(syslinuxCfg)}
	if files["vmlinuz"], err = os.ReadFile(in.kernel); err != nil {
		return "", err
	}
	img := filepath.Join(work, "boot.img")
	steps := [][]string{{"mkfs.vfat", "-C", "-n", "SITEBOOT", img, fmt.Sprint(bootImageMiB * 1024)}}
	for _, name := range []string{"vmlinuz", "initrd.gz", "syslinux.cfg"} {
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return "", err
		}
		steps = append(steps, []string{"mcopy", "-i", img, p, "::" + name})
	}
	steps = append(steps, []string{"syslinux", "--install", img})
	for _, s := range steps {
		bin, err := lookPath(s[0])
		if err != nil {
			return "", err
		}
		cmd := exec.Command(bin, s[1:]...)
		cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	return img, nil
}

// initramfs returns the gzipped cpio archive the kernel unpacks as its
// root: busybox, the init and its event script, the modules and the
// order to load them in.
func (in *bootInputs) initramfs() ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	w := &cpioWriter{w: zw}
	for _, d := range []string{"bin", "lib", "lib/modules"} {
		w.dir(d)
	}
	bb, err := os.ReadFile(in.busybox)
	if err != nil {
		return nil, err
	}
	w.file("bin/busybox", 0o755, bb)
	w.file("init", 0o755, bootInit)
	w.file("bin/dhcp-event", 0o755, bootDHCPEvent)
	var order []string
	for _, m := range in.modules {
		b, err := os.ReadFile(filepath.Join("/lib/modules", in.release, m))
		if err != nil {
			return nil, err
		}
		w.file("lib/modules/"+filepath.Base(m), 0o644, b)
		order = append(order, filepath.Base(m))
	}
	w.file("lib/modules/modules.order", 0o644, []byte(strings.Join(order, "\n")+"\n"))
	w.trailer()
	if w.err != nil {
		return nil, w.err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cpioWriter writes the "newc" format the kernel's initramfs unpacker
// reads (Documentation/driver-api/early-userspace/buffer-format.rst):
// a 110-byte ASCII header, the name, the data, each padded to 4 bytes.
type cpioWriter struct {
	w   interface{ Write([]byte) (int, error) }
	ino int
	err error
}

func (c *cpioWriter) entry(name string, mode int, data []byte) {
	if c.err != nil {
		return
	}
	c.ino++
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
	var b bytes.Buffer
	b.WriteString(hdr)
	b.WriteString(name)
	b.WriteByte(0)
	pad(&b, b.Len())
	b.Write(data)
	pad(&b, len(data))
	_, c.err = c.w.Write(b.Bytes())
}

func pad(b *bytes.Buffer, n int) {
	for ; n%4 != 0; n++ {
		b.WriteByte(0)
	}
}

func (c *cpioWriter) dir(name string)                         { c.entry(name, 0o040755, nil) }
func (c *cpioWriter) file(name string, perm int, data []byte) { c.entry(name, 0o100000|perm, data) }
func (c *cpioWriter) trailer()                                { c.entry("TRAILER!!!", 0, nil) }

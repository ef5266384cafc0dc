// Command mkbootimage writes the tests' boot image (libvirttest's: a
// Debian cloud kernel, a busybox initramfs that reads its NoCloud seed
// and takes a DHCP lease, syslinux) to a file, for make demo-full, which
// boots a VM from it where no Debian image can be downloaded. The image
// is built once into the user's cache, as for the tests; the file is
// rewritten only when it differs.
//
//	mkbootimage -o /var/tmp/site-demo-full/boot.img
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, libvirttest.BuildBootImage); err != nil {
		fmt.Fprintln(os.Stderr, "mkbootimage:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer, build func() (string, error)) error {
	fs := flag.NewFlagSet("mkbootimage", flag.ContinueOnError)
	out := fs.String("o", "", "`file` to write the image to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return errors.New("usage: mkbootimage -o FILE")
	}
	src, err := build()
	if err != nil {
		return fmt.Errorf("boot image: %w", err)
	}
	img, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if have, err := os.ReadFile(*out); err == nil && bytes.Equal(have, img) {
		fmt.Fprintf(stdout, "boot image %s is up to date\n", *out)
		return nil
	}
	// Written beside and renamed, so a reader never sees half an image.
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".boot-*.img")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(img); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "boot image %s written from %s\n", *out, src)
	return nil
}

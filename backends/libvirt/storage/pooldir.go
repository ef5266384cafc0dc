//go:build cgo && libvirt_dlopen

package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"unicode"

	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/qcow2"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// A declared pool that does not exist yet is made by its step on its
// directory, which may hold files already: building a dir pool keeps
// them, and once the pool runs libvirt lists each one as a volume, so
// apply's fresh plan (the VM driver's replan, Driver.replanImage) takes a
// disk's, a seed's or an image's file for the volume it is: kept, grown
// behind its gate, or refused. libvirt lists a directory only through a
// running pool, and a diff makes no pool, so site reads the directory
// itself, as libvirt will read it, where it can: where the host's daemon
// runs on this machine. Elsewhere, or where the directory or a file in
// it cannot be read as libvirt would, whether the volume is there is
// unknown, and the plan says so rather than claim a create.

// poolDir is what site read of the directory of a declared pool that
// does not exist yet.
type poolDir struct {
	path  string
	names []string // what libvirt will list there, once the pool runs
	// unknown says why the directory could not be read here; "" when
	// it was (a directory that does not exist holds nothing).
	unknown string
	vols    map[string]*Volume // by name, read on first use
}

// newPoolVolume reads volume name of the declared pool p, which does not
// exist on the host yet, from p's directory: a volume whose NoPool says
// so (its step plans again once the pool runs), and Unknown why it
// could not be read.
func (h *View) newPoolVolume(p *model.Pool, name string) *Volume {
	h.Lock()
	defer h.Unlock()
	dir := h.newPoolDir(p)
	if v, ok := dir.vols[name]; ok {
		return v
	}
	v := &Volume{NoPool: PoolMissing, Unknown: dir.unknown}
	if dir.unknown == "" && dir.names != nil {
		v = probeVolume(dir.path, name)
	}
	dir.vols[name] = v
	return v
}

// newPoolDir lists p's directory once per observation, and keeps the
// names for the volume listings that find upload markers (volNames);
// h.mu is held.
func (h *View) newPoolDir(p *model.Pool) *poolDir {
	if h.dirs == nil {
		h.dirs = map[string]*poolDir{}
	}
	if dir, ok := h.dirs[p.Name]; ok {
		return dir
	}
	dir := &poolDir{path: p.Path, vols: map[string]*Volume{}}
	h.dirs[p.Name] = dir
	switch where := h.WhereDaemonRuns(); where {
	case DaemonTest:
		// The test driver keeps a pool's volumes in its own memory: a
		// pool it makes holds none.
	case DaemonLocal:
		dir.names, dir.unknown = listPoolDir(p.Path)
	default:
		dir.unknown = "its directory " + p.Path + " cannot be read from here (" + string(where) + ")"
	}
	if dir.unknown == "" {
		if h.names == nil {
			h.names = map[string][]string{}
		}
		h.names[p.Name] = dir.names
	}
	return dir
}

// DaemonPlace says where a host's daemon keeps its pools' files.
type DaemonPlace string

const (
	DaemonLocal DaemonPlace = "local"
	DaemonTest  DaemonPlace = "test"
)

// WhereDaemonRuns says where the daemon site opens for h.Host runs, by the
// URI it opens: on this machine when the URI names no server and goes
// through a local socket (qemu:///system, qemu+unix:///session?...), so
// a pool's directory there is one site can read; else why it cannot.
func (h *View) WhereDaemonRuns() DaemonPlace {
	uri := h.Host
	if m, ok := h.Set.Opts.URIMap[h.Host]; ok {
		uri = m
	}
	u, err := url.Parse(uri)
	if err != nil {
		return DaemonPlace("its URI does not parse: " + err.Error())
	}
	driver, transport, _ := strings.Cut(u.Scheme, "+")
	switch {
	case driver == "test":
		return DaemonTest
	case u.Host == "" && (transport == "" || transport == "unix"):
		return DaemonLocal
	}
	return DaemonPlace("the daemon of " + hosts.RedactURI(uri) + " runs on another machine")
}

// listPoolDir lists the names in dir that libvirt lists as volumes once
// a dir pool on it runs (virStorageBackendRefreshLocal): regular files,
// directories and block devices, through symbolic links, but for names
// with control characters. A directory that does not exist holds
// nothing: building the pool makes it.
func listPoolDir(dir string) ([]string, string) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, "its directory cannot be read here: " + err.Error()
	}
	names := []string{}
	for _, e := range entries {
		if strings.IndexFunc(e.Name(), unicode.IsControl) >= 0 {
			continue
		}
		st, err := os.Stat(path.Join(dir, e.Name()))
		if err != nil {
			continue // a dangling link, which libvirt skips too
		}
		if libvirtLists(st.Mode()) {
			names = append(names, e.Name())
		}
	}
	return names, ""
}

// isoMagic is an ISO 9660 volume descriptor's identifier, at 32769.
var isoMagic, isoMagicAt = []byte("CD001"), int64(32769)

// otherFormats are the magics of the formats libvirt probes that site
// does not read (storage_file_probe.c): a file in one of them is shown
// as unknown rather than taken for raw.
var otherFormats = []struct {
	name  string
	at    int64
	magic []byte
}{
	{"qed", 0, []byte("QFI\x00")},
	{"vmdk", 0, []byte("KDMV")},
	{"vpc", 0, []byte("conectix")},
	{"vhdx", 0, []byte("vhdxfile")},
	{"bochs", 0, []byte("Bochs Virtual HD Image")},
	{"cloop", 0, []byte("#!/bin/sh\n#V2.0 Format\n")},
	{"luks", 0, []byte("LUKS\xba\xbe")},
	{"vdi", 64, []byte{0x7f, 0x10, 0xda, 0xbe}},
}

// probeVolume reads file name in dir as libvirt reads it for a dir
// pool's volume list (storageBackendProbeTarget): its format, the size
// the guest sees and the backing store of an overlay. What site cannot
// read as libvirt would is Unknown, with why.
func probeVolume(dir, name string) *Volume {
	p := path.Join(dir, name)
	v := &Volume{NoPool: PoolMissing}
	// A volume site could not read claims nothing of what it holds. Why
	// may quote the file's header, which a guest wrote (the start of its
	// raw disk), so it reaches the plan escaped, on one line.
	unknown := func(why string) *Volume {
		return &Volume{NoPool: PoolMissing, Unknown: visible.String(p + " " + why)}
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return v
	}
	st, err := os.Stat(p)
	if err != nil {
		return unknown("cannot be read here: " + err.Error())
	}
	if !st.Mode().IsRegular() {
		kind := "not a regular file"
		switch {
		case st.IsDir():
			kind = "a directory"
		case st.Mode()&fs.ModeDevice != 0:
			kind = "a device"
		}
		return unknown("is " + kind + ", which site does not read ahead of libvirt")
	}
	if strings.HasSuffix(name, ".dmg") {
		return unknown("is a dmg image by its name, a format site does not read")
	}
	f, err := os.Open(p)
	if err != nil {
		return unknown("cannot be read here: " + err.Error())
	}
	defer f.Close()
	v.Exists, v.Path, v.Format, v.Capacity = true, p, "raw", uint64(st.Size())
	at := func(off int64, n int) []byte {
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			return nil
		}
		return b
	}
	head := at(0, qcow2.IncompatAt+8) // to the feature bits, where there are some
	if head == nil {
		head = at(0, qcow2.SizeEnd)
	}
	switch h, ok := qcow2.Parse(head); {
	case ok:
		return probeQcow2(v, at, h, dir, unknown)
	case bytes.Equal(at(isoMagicAt, len(isoMagic)), isoMagic):
		v.Format = "iso"
		return v
	}
	for _, o := range otherFormats {
		if bytes.Equal(at(o.at, len(o.magic)), o.magic) {
			return unknown("is a " + o.name + " image, a format site does not read")
		}
	}
	return v
}

// probeQcow2 reads the size and backing store of a qcow2 file whose
// header is head: a relative backing file name is relative to the
// file's directory, as libvirt resolves it.
func probeQcow2(v *Volume, at func(int64, int) []byte, h qcow2.Header, dir string, unknown func(string) *Volume) *Volume {
	if h.Version != 2 && h.Version != 3 {
		return unknown(fmt.Sprintf("is a qcow image of version %d, which site does not read", h.Version))
	}
	v.Format, v.Capacity = "qcow2", h.Size
	// As once the pool runs (probed.go): data kept in a file the
	// header names is that file's, not this volume's.
	if h.DataFile {
		return unknown("is a qcow2 image whose data is in an external data file its header names, which site refuses for a disk or a base")
	}
	off, n := h.BackingOffset, h.BackingLen
	if off == 0 {
		return v
	}
	// qcow2 caps the name at 1023 bytes; a larger length is no name.
	if n > 1023 {
		return unknown("has a backing file name site cannot read")
	}
	name := at(int64(off), int(n))
	if name == nil {
		return unknown("has a backing file name site cannot read")
	}
	v.Backing = string(name)
	if !strings.HasPrefix(v.Backing, "/") {
		v.Backing = strings.TrimSuffix(dir, "/") + "/" + v.Backing
	}
	// The name is the header's, which a guest writes when the file is
	// its raw disk: looked up outside the pool, it would have the plan
	// tell whether the runner has some file. A base a disk starts from
	// is in the disk's own pool, so nothing outside is one site plans
	// with; libvirt, once the pool runs, says what the file is.
	if !inDir(dir, v.Backing) {
		return unknown("is an overlay on a file outside the pool's directory, which site does not look at before libvirt does")
	}
	// libvirt 9.0 lists an overlay whose backing file it cannot probe,
	// faking the backing's format as raw; whether its daemon can read
	// the file is not site's to tell from here, so the volume is shown
	// unknown until libvirt has read it.
	if _, err := os.Stat(v.Backing); err != nil {
		return unknown("is an overlay on " + v.Backing + ", which cannot be read here: " + err.Error())
	}
	return v
}

// inDir reports whether file, an absolute path, names something inside
// directory dir once "." and ".." are resolved (symbolic links are not).
func inDir(dir, file string) bool {
	return strings.HasPrefix(path.Clean(file), strings.TrimSuffix(path.Clean(dir), "/")+"/")
}

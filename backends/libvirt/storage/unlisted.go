//go:build cgo && libvirt_dlopen

package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/visible"
)

// A dir pool's directory may hold a file that libvirt does not list as
// a volume: one put there since libvirt last read the pool (at its
// start or a refresh), one the daemon cannot open, a symbolic link to
// nothing, a named pipe, a socket or a character device. Planned as a
// missing volume, apply's create then fails ("volume target path …
// already exists"), or, for an overlay on a link to nothing, qemu-img
// writes the new disk through the link, wherever it points. So where
// the daemon runs on this machine site looks at the path of a volume
// libvirt does not list, and refuses to plan a volume a file is in the
// way of. libvirt 9.0 does list an overlay whose backing file is
// missing (it fakes the backing's format as raw): that one is a volume
// like any other.

// UnlistedError says a volume libvirt does not list has a file in the
// pool's directory, and why libvirt does not list it.
type UnlistedError struct {
	host, pool, name string
	path             string
	why              string
}

func (e UnlistedError) Error() string {
	return fmt.Sprintf("volume %s/%s on %s: libvirt does not list it, but the pool's directory holds %s: %s; site takes no file libvirt does not list for a volume, nor makes one over it, so nothing was changed; "+
		"to use it as the volume, make it a file libvirt lists (a regular file its daemon can open) and have libvirt read the pool again (virsh -c %s pool-refresh %s); else move it out of the directory, or name another volume",
		e.pool, e.name, e.host, e.path, e.why, e.host, e.pool)
}

// unlisted looks for a file at the path of volume name, which libvirt
// does not list in pool p (declared, when site.cue declares it): an
// UnlistedError when there is one, nil when there is none or site
// cannot look (the daemon runs on another machine, the pool is not a
// directory, the directory cannot be read here). h.mu is held.
func (h *View) unlisted(p *libvirt.StoragePool, pool, name string, declared *model.Pool) error {
	if h.WhereDaemonRuns() != DaemonLocal {
		return nil
	}
	dir, err := h.PoolDirPath(p, pool, declared)
	if err != nil || dir == "" {
		return err
	}
	path := filepath.Join(dir, name)
	why := whyUnlisted(path)
	if why == "" {
		return nil
	}
	return UnlistedError{host: h.Host, pool: pool, name: name, path: path, why: why}
}

// PoolDirPath is the directory of pool p, whose volumes are its files:
// declared's path when site.cue declares the pool (its step blocks the
// VMs that need a pool there with another type or path, so it costs no
// request), else read from libvirt once per observation; "" for a pool
// of another kind (logical, disk, iSCSI, …). h.mu is held.
func (h *View) PoolDirPath(p *libvirt.StoragePool, pool string, declared *model.Pool) (string, error) {
	if declared != nil && declared.Type == "dir" {
		return declared.Path, nil
	}
	if dir, ok := h.dirPaths[pool]; ok {
		return dir, nil
	}
	h.Set.Call()
	x, err := p.GetXMLDesc(0)
	if err != nil {
		return "", fmt.Errorf("read pool %s on %s: %w", pool, h.Host, err)
	}
	var def libvirtxml.StoragePool
	if err := def.Unmarshal(x); err != nil {
		return "", fmt.Errorf("parse pool %s on %s: %w", pool, h.Host, err)
	}
	dir := ""
	switch def.Type {
	case "dir", "fs", "netfs":
		if def.Target != nil {
			dir = def.Target.Path
		}
	}
	if h.dirPaths == nil {
		h.dirPaths = map[string]string{}
	}
	h.dirPaths[pool] = dir
	return dir, nil
}

// whyUnlisted says why libvirt does not list the file at path, in a
// pool's directory; "" when there is nothing there, or site cannot
// tell.
func whyUnlisted(path string) string {
	st, err := os.Lstat(path)
	if err != nil {
		return "" // nothing there, or nothing site can tell
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(path)
		target = visible.String(target)
		if st, err = os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return "a symbolic link to " + target + ", which does not exist: libvirt lists no link to nothing, and making the volume would write " + target + " through it"
		}
		if err != nil {
			return "a symbolic link to " + target + ", which cannot be read here: " + err.Error()
		}
	}
	if kind := unlistedKind(st.Mode()); kind != "" {
		return "a " + kind + ", which libvirt does not list as a volume"
	}
	owner := ""
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		owner = fmt.Sprintf(" (owned by uid %d, gid %d, mode %04o)", s.Uid, s.Gid, st.Mode().Perm())
	}
	return "it was put there after libvirt last read the pool, or libvirt's daemon cannot open it" + owner
}

// libvirtLists reports whether libvirt lists a file of mode m (through
// symbolic links) as a volume of a dir pool: regular files, directories
// and block devices (virStorageBackendRefreshLocal).
func libvirtLists(m fs.FileMode) bool {
	return m.IsRegular() || m.IsDir() || m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0
}

// unlistedKind names a kind of file libvirt never lists as a volume of
// a dir pool; "" for those it lists (libvirtLists).
func unlistedKind(m fs.FileMode) string {
	switch {
	case libvirtLists(m):
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	}
	return ""
}

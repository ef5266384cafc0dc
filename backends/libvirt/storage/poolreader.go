//go:build cgo && libvirt_dlopen

package storage

import (
	"fmt"
	"path/filepath"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
)

// poolReader reads the volumes of one pool through one handle; h.mu
// is held.
type poolReader struct {
	h    *View
	p    *libvirt.StoragePool
	pool string
}

func (r poolReader) calling(call string) func() {
	return r.h.Set.Calling(r.h.Set.Server(r.h.Host), call)
}

// siteNote reads the notes of an upload's markers, newest first, until
// one is site's: proved is false when none is (a marker site did not
// write, or one a kill left before its note was written).
func (r poolReader) siteNote(ms []uploadmark.Marker) (note uploadmark.Note, proved bool, err error) {
	for i := len(ms) - 1; i >= 0; i-- {
		note, err := r.note(ms[i].Name)
		if err != nil {
			return uploadmark.Note{}, false, err
		}
		if note.Site {
			return note, true, nil
		}
	}
	return uploadmark.Note{}, false, nil
}

// note reads marker name's note; an empty one when it went meanwhile.
func (r poolReader) note(name string) (uploadmark.Note, error) {
	what := r.pool + "/" + name
	done := r.calling("LookupStorageVolByName " + what)
	vol, err := r.p.LookupStorageVolByName(name)
	done()
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return uploadmark.Note{}, nil
	}
	if err != nil {
		return uploadmark.Note{}, fmt.Errorf("look up the upload marker %s on %s: %w", what, r.h.Host, err)
	}
	defer vol.Free()
	note, _, err := uploadmark.ReadNote(r.h.Conn, vol, what, r.calling)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return uploadmark.Note{}, nil
	}
	if err != nil {
		return uploadmark.Note{}, fmt.Errorf("read the upload marker %s on %s: %w", what, r.h.Host, err)
	}
	return note, nil
}

// read reads volume name whole when it holds at most limit bytes: nil
// for a larger one, or one that went meanwhile.
func (r poolReader) read(name string, limit uint64) ([]byte, error) {
	what := r.pool + "/" + name
	done := r.calling("LookupStorageVolByName " + what)
	vol, err := r.p.LookupStorageVolByName(name)
	done()
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up volume %s on %s: %w", what, r.h.Host, err)
	}
	defer vol.Free()
	done = r.calling("GetInfo of volume " + what)
	info, err := vol.GetInfo()
	done()
	if err != nil || info.Capacity > limit {
		if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
			err = nil
		}
		return nil, err
	}
	b, err := download(r.h.Conn, vol, what, info.Capacity, r.calling)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read volume %s on %s: %w", what, r.h.Host, err)
	}
	return b, nil
}

// download reads the first n bytes of vol over connection c.
func download(c *libvirt.Connect, vol *libvirt.StorageVol, what string, n uint64, calling func(call string) (done func())) ([]byte, error) {
	done := calling("NewStream for " + what)
	st, err := c.NewStream(0)
	done()
	if err != nil {
		return nil, err
	}
	defer st.Free()
	done = calling("StorageVolDownload " + what)
	err = vol.Download(st, 0, n, 0)
	done()
	if err != nil {
		_ = st.Abort()
		return nil, err
	}
	out := make([]byte, 0, n)
	buf := make([]byte, 64<<10)
	for uint64(len(out)) < n {
		got, err := st.Recv(buf)
		if err != nil {
			_ = st.Abort()
			return nil, err
		}
		if got == 0 {
			break
		}
		out = append(out, buf[:got]...)
	}
	return out, st.Finish()
}

// paths are the file paths of vols: in a directory pool its directory
// and the name (one read of the pool's definition per observation),
// else each volume's path as libvirt says it ("" for one that went
// meanwhile).
func (r poolReader) paths(vols []string) ([]string, error) {
	dir, err := r.h.PoolDirPath(r.p, r.pool, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(vols))
	for i, name := range vols {
		if dir != "" {
			out[i] = filepath.Join(dir, name)
			continue
		}
		if out[i], err = r.path(name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// path is volume name's path, as libvirt says it.
func (r poolReader) path(name string) (string, error) {
	what := r.pool + "/" + name
	done := r.calling("LookupStorageVolByName " + what)
	vol, err := r.p.LookupStorageVolByName(name)
	done()
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up volume %s on %s: %w", what, r.h.Host, err)
	}
	defer vol.Free()
	done = r.calling("GetPath of volume " + what)
	path, err := vol.GetPath()
	done()
	if err != nil {
		return "", fmt.Errorf("read the path of volume %s on %s: %w", what, r.h.Host, err)
	}
	return path, nil
}

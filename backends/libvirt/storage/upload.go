//go:build cgo && libvirt_dlopen

package storage

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
)

// An upload (a base image, a cloud-init seed) fills a volume that
// exists, under its final name, from the moment it is created: libvirt
// has no volume rename, and a volume's size says nothing of how much
// of it was sent. So a run that dies mid-upload (a second Ctrl-C, a
// kill, a lost connection, a crashed host) would leave a volume that
// the next run takes for the whole image and never replaces.
//
// site therefore marks an upload in the pool itself: before it creates
// the volume NAME it creates an empty volume named uploadmark.UploadingName(NAME)
// (".NAME.uploading"), and deletes it only once every byte was sent and
// the stream finished. Observing a volume that has a marker beside it
// reads it as missing (storage.Volume.Partial), so the plan uploads it. The
// marker's leading dot keeps it apart from every name a spec may give a
// volume (site vet wants a letter or digit first). A run that dies after
// the last byte but before deleting the marker costs one upload more,
// never a broken base. The marker is the upload's lock too, since two
// runs may upload one volume at once: see marker.go.

// PartialReason says, after a plan's reason, why a volume that is there
// is uploaded, markers naming the markers beside it.
func PartialReason(markers []string) string {
	return "; an upload into the volume in the pool has not finished (its marker " + strings.Join(markers, ", ") +
		" is beside it): apply waits while another run's upload goes on, and deletes and uploads again what a run that is gone left"
}

// UploadStage is called as an upload reaches a stage: "cleanup" before
// it deletes what a stale upload left, "create" before it creates the
// volume. Tests use it to stand for a slow host or a pause there.
var UploadStage = func(stage string) {}

// UploadProgressEvery is how often a long upload says how far it got;
// tests shorten it.
var UploadProgressEvery = 5 * time.Second

// CreateUploaded creates the volume def in pool and streams size bytes
// from src into it, under a marker of its own (see marker.go). It
// waits while another run uploads it, and is done when that upload
// finishes; it deletes a volume of that name only when it took the
// upload over from a run proved gone. A failed upload deletes its
// volume, and then its marker; whatever cannot be deleted stays marked,
// so the next run uploads again.
func (a *Writer) CreateUploaded(pool string, def libvirtxml.StorageVolume, src io.Reader, size int64) error {
	what := pool + "/" + def.Name
	p, err := a.Pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	u, whole, err := a.HoldUpload(p, pool, def.Name, false)
	if err != nil {
		return err
	}
	if u == nil {
		if whole {
			a.Run.Say(what + " was uploaded by another run meanwhile: nothing to upload")
		}
		return nil
	}
	defer u.Release()
	if err := u.DropStale(); err != nil {
		return err
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("volume %s: %w", def.Name, err)
	}
	UploadStage("create")
	if err := u.stillMine(); err != nil {
		return err
	}
	done := a.calling("StorageVolCreateXML " + what)
	vol, err := p.StorageVolCreateXML(x, 0)
	done()
	if conn.IsCode(err, libvirt.ERR_STORAGE_VOL_EXIST) && len(u.stale) == 0 {
		// Whole: its run deleted its marker between our two looks.
		a.Run.Say(what + " was uploaded by another run meanwhile: nothing to upload")
		return u.Unmark()
	}
	if err != nil {
		err = fmt.Errorf("create volume %s on %s: %w", what, a.Host, err)
		if len(u.stale) == 0 {
			// Nothing was uploaded; a volume that was there already
			// is not this run's to mark.
			if uerr := u.Unmark(); uerr != nil {
				err = fmt.Errorf("%w (and %v)", err, uerr)
			}
		}
		return err
	}
	defer vol.Free()
	err = a.upload(vol, what, src, size, u.lost)
	u.stopBeat()
	if terr := u.stillMine(); terr != nil {
		// The volume is the new holder's now: nothing here is deleted.
		return terr
	}
	if err != nil {
		if derr := a.DeletePartial(vol, what); derr != nil {
			return fmt.Errorf("upload into %s on %s: %w (deleting the partial volume failed too: %v; it stays marked as partial, so the next run deletes it and uploads again)", what, a.Host, err, derr)
		}
		if uerr := u.Unmark(); uerr != nil {
			return fmt.Errorf("upload into %s on %s: %w; the partial volume was deleted (and %v)", what, a.Host, err, uerr)
		}
		return fmt.Errorf("upload into %s on %s: %w; the partial volume was deleted", what, a.Host, err)
	}
	return u.Unmark()
}

// HeldUpload is an upload into pool/name that this run holds by its
// marker mine (see marker.go), which grows while it is held.
type HeldUpload struct {
	a          *Writer
	p          *libvirt.StoragePool
	pool, name string
	mark       *libvirt.StorageVol
	mine       uploadmark.Marker
	stale      []uploadmark.Marker // taken over: deleted with what they marked
	lost       func() bool
	stopBeat   func()
}

// HoldUpload takes the upload into pool/name for this run: it waits
// while another run's marker grows, takes a stale one over with a
// marker of the next generation, and otherwise creates the first
// marker. It holds nothing (nil) when the volume is there with no
// marker beside it (whole: its upload finished meanwhile), or, with
// onlyLeft, when no marker is there at all: a run that only clears
// what an upload left has nothing to clear then.
func (a *Writer) HoldUpload(p *libvirt.StoragePool, pool, name string, onlyLeft bool) (u *HeldUpload, whole bool, err error) {
	what := pool + "/" + name
	var (
		mark  *libvirt.StorageVol
		mine  uploadmark.Marker
		stale []uploadmark.Marker
	)
	for mark == nil {
		// The volume before its markers: a run creates its marker
		// before the volume and deletes it after the last byte, so a
		// volume seen with no marker after it is whole.
		old, err := a.lookupVol(p, pool, name)
		if err != nil {
			return nil, false, err
		}
		if old != nil {
			old.Free()
		}
		ms, err := a.markers(p, pool, name)
		if err != nil {
			return nil, false, err
		}
		mine, stale = uploadmark.Marker{Name: uploadmark.UploadingName(name)}, nil
		if len(ms) == 0 && (old != nil || onlyLeft) {
			return nil, old != nil, nil
		}
		if len(ms) > 0 {
			top := ms[len(ms)-1]
			state, why, err := a.waitMarker(p, pool, top, what)
			if err != nil {
				return nil, false, err
			}
			if state == markerGone {
				continue
			}
			a.Run.Say(fmt.Sprintf("the upload into %s on %s: %s; this run takes it over (marker %s)", what, a.Set.Server(a.Host), why, uploadmark.Name(name, top.Gen+1)))
			mine, stale = uploadmark.Marker{Name: uploadmark.Name(name, top.Gen+1), Gen: top.Gen + 1}, ms
		}
		// nil: another run made this marker first; wait for it.
		if mark, err = a.CreateMarker(p, pool, mine, what); err != nil {
			return nil, false, err
		}
	}
	u = &HeldUpload{a: a, p: p, pool: pool, name: name, mark: mark, mine: mine, stale: stale}
	// The marker grows from now on, not only once the volume exists:
	// deleting what a stale upload left and creating the volume (which
	// libvirt allocates in full) can outlast uploadmark.StaleAfter on a slow
	// host, and another run would take the live upload over.
	u.lost, u.stopBeat = a.Beat(mark)
	return u, false, nil
}

// Release stops the marker's beat and frees it; the marker stays.
func (u *HeldUpload) Release() {
	u.stopBeat()
	u.mark.Free()
}

// stillMine fails once another run took the upload over (this run was
// paused past uploadmark.StaleAfter): the volume is that run's from then on, so
// nothing of it is deleted or created here.
func (u *HeldUpload) stillMine() error {
	taken, err := u.a.takenOver(u.p, u.pool, u.name, u.mine, u.lost())
	if err != nil || taken == "" {
		return err
	}
	return fmt.Errorf("%s took the upload into %s/%s over while this run was paused (marker %s): it uploads it now; apply again once it has finished", taken, u.pool, u.name, u.mine.Name)
}

// DropStale deletes what the stale upload this run took over left: the
// partial volume, then the older markers. It does nothing for an
// upload nobody held before.
func (u *HeldUpload) DropStale() error {
	if len(u.stale) == 0 {
		return nil
	}
	a, what := u.a, u.pool+"/"+u.name
	UploadStage("cleanup")
	if err := u.stillMine(); err != nil {
		return err
	}
	old, err := a.lookupVol(u.p, u.pool, u.name)
	if err != nil {
		return err
	}
	if old != nil {
		err := a.DeletePartial(old, what)
		old.Free()
		if err != nil {
			return fmt.Errorf("delete volume %s on %s, which an upload that did not finish left: %w", what, a.Host, err)
		}
	}
	for _, m := range u.stale {
		if err := a.deleteMarker(u.p, u.pool, m.Name); err != nil {
			return err
		}
	}
	return nil
}

// Unmark deletes this run's marker: the upload is over, whole or
// deleted.
func (u *HeldUpload) Unmark() error {
	a := u.a
	defer a.calling("Delete of volume " + u.pool + "/" + u.mine.Name)()
	if err := u.mark.Delete(0); err != nil {
		return fmt.Errorf("delete volume %s/%s on %s, which marks the upload of %s/%s: %w; delete it by hand (virsh -c %s vol-delete --pool %s %s), else the next run uploads %s again",
			u.pool, u.mine.Name, a.Host, u.pool, u.name, err, a.Host, u.pool, u.mine.Name, u.name)
	}
	return nil
}

// takenOver says which run took the upload under marker mine over
// ("" when none did): this run's marker is gone (lost) or a newer one
// is beside it.
func (a *Writer) takenOver(p *libvirt.StoragePool, pool, name string, mine uploadmark.Marker, lost bool) (string, error) {
	ms, err := a.markers(p, pool, name)
	if err != nil {
		return "", err
	}
	newer := len(ms) > 0 && ms[len(ms)-1].Gen > mine.Gen
	if !lost && !newer && slices.Contains(ms, mine) {
		return "", nil
	}
	if newer {
		if v, err := a.lookupVol(p, pool, ms[len(ms)-1].Name); err == nil && v != nil {
			defer v.Free()
			if note, _, err := a.readNote(v, pool+"/"+ms[len(ms)-1].Name); err == nil {
				return note.Who(), nil
			}
		}
	}
	return "another site run", nil
}

// deleteMarker deletes marker volume name of pool p; one already gone
// is no error.
func (a *Writer) deleteMarker(p *libvirt.StoragePool, pool, name string) error {
	v, err := a.lookupVol(p, pool, name)
	if err != nil || v == nil {
		return err
	}
	defer v.Free()
	defer a.calling("Delete of volume " + pool + "/" + name)()
	if err := v.Delete(0); err != nil && !conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return fmt.Errorf("delete volume %s/%s on %s, the marker of an upload that did not finish: %w", pool, name, a.Host, err)
	}
	return nil
}

// DeletePartial deletes vol, named for a person by what ("pool/name"),
// after an upload or copy into it failed.
func (a *Writer) DeletePartial(vol *libvirt.StorageVol, what string) error {
	defer a.calling("Delete of volume " + what)()
	return vol.Delete(0)
}

// errUploadInterrupted stops an upload at the first interrupt: the
// partial volume is deleted, and the next run uploads it whole.
var errUploadInterrupted = fmt.Errorf("stopped at the interrupt: %w", backends.ErrInterrupted)

// errUploadTakenOver stops an upload whose marker another run deleted,
// taking the upload over.
var errUploadTakenOver = errors.New("stopped: another run took the upload over")

// upload streams size bytes read from r into vol (StorageVolUpload),
// following the binding's own integration test: a seed from memory and
// a base image from a file take the same path. Opening and finishing
// the stream are named to the run as calls (what: "pool/name"); while
// the bytes flow, an upload that takes longer than UploadProgressEvery
// says how far it got, every UploadProgressEvery: a 3 GiB image takes
// minutes, and a single "waiting to answer StorageVolUpload" read as a
// host that hung. The run's first interrupt stops it between two
// chunks, and so does lost (nil: never) reporting true.
func (a *Writer) upload(vol *libvirt.StorageVol, what string, r io.Reader, size int64, lost func() bool) error {
	done := a.calling("NewStream for " + what)
	st, err := a.C.NewStream(0)
	done()
	if err != nil {
		return err
	}
	defer st.Free()
	done = a.calling(fmt.Sprintf("StorageVolUpload %s (%s)", what, byteString(size)))
	err = vol.Upload(st, 0, uint64(size), 0)
	done()
	if err != nil {
		_ = st.Abort()
		return err
	}
	var sent atomic.Int64
	stop := a.sayProgress(what, size, &sent)
	var stopped error
	a.Set.Call()
	err = st.SendAll(func(_ *libvirt.Stream, n int) ([]byte, error) {
		if a.Run.Interrupted() {
			stopped = errUploadInterrupted
			return nil, stopped
		}
		if lost != nil && lost() {
			stopped = errUploadTakenOver
			return nil, stopped
		}
		buf := make([]byte, n)
		k, err := r.Read(buf)
		sent.Add(int64(k))
		if err == io.EOF {
			return buf[:k], nil // k == 0 ends the stream
		}
		if err != nil {
			stopped = err
		}
		return buf[:k], err
	})
	stop()
	if err != nil {
		_ = st.Abort()
		if stopped != nil {
			err = stopped
		}
		if errors.Is(err, backends.ErrInterrupted) {
			return fmt.Errorf("%s of %s sent, %w", byteString(sent.Load()), byteString(size), err)
		}
		return err
	}
	defer a.calling("Finish of the upload into " + what)()
	return st.Finish()
}

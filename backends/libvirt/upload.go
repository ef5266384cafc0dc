package libvirt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
)

// An upload (a base image, a cloud-init seed) fills a volume that
// exists, under its final name, from the moment it is created: libvirt
// has no volume rename, and a volume's size says nothing of how much
// of it was sent. So a run that dies mid-upload (a second Ctrl-C, a
// kill, a lost connection, a crashed host) would leave a volume that
// the next run takes for the whole image and never replaces.
//
// site therefore marks an upload in the pool itself: before it creates
// the volume NAME it creates an empty volume named uploadingName(NAME)
// (".NAME.uploading"), and deletes it only once every byte was sent and
// the stream finished. Observing a volume that has its marker beside it
// reads it as missing (volObs.Partial), so the plan uploads it again:
// the partial volume is deleted first, then made and filled anew. The
// marker's leading dot keeps it apart from every name a spec may give a
// volume (site vet wants a letter or digit first). A run that dies after
// the last byte but before deleting the marker costs one upload more,
// never a broken base.

// uploadingName is the marker volume of an upload into name (see
// above). A name too long to carry the marker's dot and suffix within a
// file name's 255 bytes gets a marker named by its hash.
func uploadingName(name string) string {
	if n := "." + name + ".uploading"; len(n) <= 255 {
		return n
	}
	sum := sha256.Sum256([]byte(name))
	return ".uploading-" + hex.EncodeToString(sum[:16])
}

// partialReason says, after a plan's reason, why a volume that is there
// is uploaded again.
func partialReason(name string) string {
	return "; the volume in the pool is what an upload that did not finish left (its marker " + uploadingName(name) + " is beside it): it is deleted and uploaded again"
}

// uploadProgressEvery is how often a long upload says how far it got;
// tests shorten it.
var uploadProgressEvery = 5 * time.Second

// createUploaded creates the volume def in pool and streams size bytes
// from src into it, under its marker (see uploadingName). A volume of
// that name already there is deleted first, but only when its marker
// says it is what a failed upload left. A failed upload deletes its
// volume, and then its marker; whatever cannot be deleted stays marked,
// so the next run uploads again.
func (a *applier) createUploaded(pool string, def libvirtxml.StorageVolume, src io.Reader, size int64) error {
	what := pool + "/" + def.Name
	p, err := a.pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	marker := uploadingName(def.Name)
	done := a.calling("LookupStorageVolByName " + pool + "/" + marker)
	mark, err := p.LookupStorageVolByName(marker)
	done()
	left := err == nil // a failed upload's marker, and maybe its volume
	switch {
	case left:
	case !isCode(err, libvirt.ERR_NO_STORAGE_VOL):
		return fmt.Errorf("look up volume %s/%s on %s: %w", pool, marker, a.host, err)
	default:
		m := libvirtxml.StorageVolume{Name: marker, Capacity: &libvirtxml.StorageVolumeSize{Value: 0, Unit: "bytes"},
			Target: &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}}}
		x, err := m.Marshal()
		if err != nil {
			return fmt.Errorf("volume %s: %w", marker, err)
		}
		done := a.calling("StorageVolCreateXML " + pool + "/" + marker)
		mark, err = p.StorageVolCreateXML(x, 0)
		done()
		if err != nil {
			return fmt.Errorf("create volume %s/%s on %s, which marks the upload of %s until it is complete: %w", pool, marker, a.host, what, err)
		}
	}
	defer mark.Free()
	unmark := func() error {
		defer a.calling("Delete of volume " + pool + "/" + marker)()
		if err := mark.Delete(0); err != nil {
			return fmt.Errorf("delete volume %s/%s on %s, which marks the upload of %s: %w; delete it by hand (virsh -c %s vol-delete --pool %s %s), else the next run uploads %s again",
				pool, marker, a.host, what, err, a.host, pool, marker, def.Name)
		}
		return nil
	}
	if left {
		done := a.calling("LookupStorageVolByName " + what)
		old, err := p.LookupStorageVolByName(def.Name)
		done()
		switch {
		case isCode(err, libvirt.ERR_NO_STORAGE_VOL):
		case err != nil:
			return fmt.Errorf("look up volume %s on %s: %w", what, a.host, err)
		default:
			err := a.deletePartial(old, what)
			old.Free()
			if err != nil {
				return fmt.Errorf("delete volume %s on %s, which an upload that did not finish left: %w", what, a.host, err)
			}
		}
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("volume %s: %w", def.Name, err)
	}
	done = a.calling("StorageVolCreateXML " + what)
	vol, err := p.StorageVolCreateXML(x, 0)
	done()
	if err != nil {
		err = fmt.Errorf("create volume %s on %s: %w", what, a.host, err)
		if !left {
			// Nothing was uploaded; a volume that was there already
			// is not this run's to mark.
			if uerr := unmark(); uerr != nil {
				err = fmt.Errorf("%w (and %v)", err, uerr)
			}
		}
		return err
	}
	defer vol.Free()
	if err := a.upload(vol, what, src, size); err != nil {
		if derr := a.deletePartial(vol, what); derr != nil {
			return fmt.Errorf("upload into %s on %s: %w (deleting the partial volume failed too: %v; it stays marked as partial, so the next run deletes it and uploads again)", what, a.host, err, derr)
		}
		if uerr := unmark(); uerr != nil {
			return fmt.Errorf("upload into %s on %s: %w; the partial volume was deleted (and %v)", what, a.host, err, uerr)
		}
		return fmt.Errorf("upload into %s on %s: %w; the partial volume was deleted", what, a.host, err)
	}
	return unmark()
}

// deletePartial deletes vol, named for a person by what ("pool/name"),
// after an upload or copy into it failed.
func (a *applier) deletePartial(vol *libvirt.StorageVol, what string) error {
	defer a.calling("Delete of volume " + what)()
	return vol.Delete(0)
}

// errUploadInterrupted stops an upload at the first interrupt: the
// partial volume is deleted, and the next run uploads it whole.
var errUploadInterrupted = fmt.Errorf("stopped at the interrupt: %w", backends.ErrInterrupted)

// upload streams size bytes read from r into vol (StorageVolUpload),
// following the binding's own integration test: a seed from memory and
// a base image from a file take the same path. Opening and finishing
// the stream are named to the run as calls (what: "pool/name"); while
// the bytes flow, an upload that takes longer than uploadProgressEvery
// says how far it got, every uploadProgressEvery: a 3 GiB image takes
// minutes, and a single "waiting to answer StorageVolUpload" read as a
// host that hung. The run's first interrupt stops it between two
// chunks.
func (a *applier) upload(vol *libvirt.StorageVol, what string, r io.Reader, size int64) error {
	done := a.calling("NewStream for " + what)
	st, err := a.c.NewStream(0)
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
	a.d.call()
	err = st.SendAll(func(_ *libvirt.Stream, n int) ([]byte, error) {
		if a.run.Interrupted() {
			stopped = errUploadInterrupted
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

// sayProgress says every uploadProgressEvery how much of an upload of
// size bytes into what was sent, until stop is called.
func (a *applier) sayProgress(what string, size int64, sent *atomic.Int64) (stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(over)
		t := time.NewTicker(uploadProgressEvery)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			n := sent.Load()
			line := fmt.Sprintf("uploading %s to %s: %s of %s sent (%d%%, %s)", what, a.d.server(a.host),
				byteString(n), byteString(size), percent(n, size), time.Since(start).Round(time.Second))
			if n == last {
				line += "; nothing more was taken since the last report"
			}
			last = n
			a.run.Say(line)
		}
	}()
	return func() { close(quit); <-over }
}

func percent(n, of int64) int64 {
	if of <= 0 {
		return 100
	}
	return n * 100 / of
}

// byteString is a byte count for a person: "1.5 GiB", "12 KiB", "10 bytes".
func byteString(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

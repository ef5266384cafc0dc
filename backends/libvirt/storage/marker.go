//go:build cgo && libvirt_dlopen

package storage

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
)

// markers lists the markers of an upload into name in pool p, as the
// daemon has them now.
func (a *Writer) markers(p *libvirt.StoragePool, pool, name string) ([]uploadmark.Marker, error) {
	done := a.calling("ListStorageVolumes " + pool)
	vols, err := p.ListStorageVolumes()
	done()
	if err != nil {
		return nil, fmt.Errorf("list the volumes of pool %s on %s: %w", pool, a.Host, err)
	}
	return uploadmark.In(vols, name), nil
}

// lookupVol looks up pool/name: nil without error when it is not there.
func (a *Writer) lookupVol(p *libvirt.StoragePool, pool, name string) (*libvirt.StorageVol, error) {
	done := a.calling("LookupStorageVolByName " + pool + "/" + name)
	v, err := p.LookupStorageVolByName(name)
	done()
	switch {
	case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look up volume %s/%s on %s: %w", pool, name, a.Host, err)
	}
	return v, nil
}

// CreateMarker creates marker m in pool p with this run's note: nil
// without error when another run created it first.
func (a *Writer) CreateMarker(p *libvirt.StoragePool, pool string, m uploadmark.Marker, what string) (*libvirt.StorageVol, error) {
	def := libvirtxml.StorageVolume{Name: m.Name, Capacity: &libvirtxml.StorageVolumeSize{Value: uploadmark.NoteSize, Unit: "bytes"},
		Target: &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}}}
	x, err := def.Marshal()
	if err != nil {
		return nil, fmt.Errorf("volume %s: %w", m.Name, err)
	}
	done := a.calling("StorageVolCreateXML " + pool + "/" + m.Name)
	vol, err := p.StorageVolCreateXML(x, 0)
	done()
	if conn.IsCode(err, libvirt.ERR_STORAGE_VOL_EXIST) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create volume %s/%s on %s, which marks the upload of %s until it is complete: %w", pool, m.Name, a.Host, what, err)
	}
	note := uploadmark.ThisRun
	note.Since = time.Now().UTC().Format(time.RFC3339)
	note.Tenant = a.Tenant
	if err := a.upload(vol, pool+"/"+m.Name, bytes.NewReader(note.Bytes()), uploadmark.NoteSize, nil); err != nil {
		// Unnamed, it is judged by its beat, which the upload's beat
		// gives it from now on.
		a.Run.Say(fmt.Sprintf("could not write which run uploads %s into its marker %s/%s (%v): other runs wait %s for it to grow before taking it for stale", what, pool, m.Name, err, uploadmark.StaleAfter()))
	}
	return vol, nil
}

// readNote reads a marker's note and its size (its beat).
func (a *Writer) readNote(vol *libvirt.StorageVol, what string) (uploadmark.Note, uint64, error) {
	return uploadmark.ReadNote(a.C, vol, what, a.calling)
}

// markerState is what waiting on another run's marker ended with.
type markerState int

const (
	markerGone  markerState = iota // deleted: its upload finished, or failed and cleaned up
	markerStale                    // its run is proved gone, or it stopped growing
)

// waitMarker waits while marker m of the upload into what ("pool/name")
// grows, and says what it waits for. It returns once m is gone or
// stale, or with an error at the run's first interrupt.
func (a *Writer) waitMarker(p *libvirt.StoragePool, pool string, m uploadmark.Marker, what string) (markerState, string, error) {
	vol, err := a.lookupVol(p, pool, m.Name)
	if err != nil || vol == nil {
		return markerGone, "", err
	}
	defer vol.Free()
	where := pool + "/" + m.Name
	note, size, err := a.readNote(vol, where)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return markerGone, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("read the marker %s on %s of an upload into %s: %w", where, a.Host, what, err)
	}
	if note.Gone() {
		return markerStale, fmt.Sprintf("%s left it unfinished: that process is gone", note.Who()), nil
	}
	a.Run.Say(fmt.Sprintf("%s is uploading %s to %s (its marker %s is there); waiting for it to finish, or for the marker to stop growing for %s", note.Who(), what, a.Set.Server(a.Host), m.Name, uploadmark.StaleAfter()))
	grew := time.Now()
	poll := time.NewTicker(uploadmark.Beat / 5)
	defer poll.Stop()
	for {
		<-poll.C
		if a.Run.Interrupted() {
			return 0, "", fmt.Errorf("stopped waiting for %s to upload %s: %w", note.Who(), what, errUploadInterrupted)
		}
		done := a.calling("GetInfo of volume " + where)
		info, err := vol.GetInfo()
		done()
		switch {
		case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
			return markerGone, "", nil
		case err != nil:
			return 0, "", fmt.Errorf("read the marker %s on %s of an upload into %s: %w", where, a.Host, what, err)
		case info.Capacity != size:
			size, grew = info.Capacity, time.Now()
		case time.Since(grew) >= uploadmark.StaleAfter():
			return markerStale, fmt.Sprintf("%s left it unfinished: its marker has not grown for %s", note.Who(), uploadmark.StaleAfter()), nil
		}
	}
}

// Beat grows marker mark every uploadmark.Beat until stop is called, so that
// other runs see the upload is alive; lost says the marker was gone at
// a beat (another run took the upload over while this one was paused).
func (a *Writer) Beat(mark *libvirt.StorageVol) (lost func() bool, stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	var gone atomic.Bool
	go func() {
		defer close(over)
		t := time.NewTicker(uploadmark.Beat)
		defer t.Stop()
		// libvirt refuses a capacity below the volume's allocation, a
		// whole block of the file system (4 KiB for the 512-byte
		// note), so the marker grows from the larger of the two and
		// from the allocation again should a beat be refused.
		size := uint64(uploadmark.NoteSize)
		// The beat's calls are the marker's upkeep, as renewals are the
		// apply lock's, and are not counted among the step's requests:
		// their number depends on how long the upload takes, so the
		// report would say a different count for the same work.
		from := func() {
			if info, err := mark.GetInfo(); err == nil {
				size = max(size, info.Capacity, info.Allocation)
			}
		}
		from()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			size++
			err := mark.Resize(size, 0)
			switch {
			case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
				gone.Store(true)
				return
			case err != nil:
				from()
			}
		}
	}()
	var once sync.Once
	return gone.Load, func() { once.Do(func() { close(quit); <-over }) }
}

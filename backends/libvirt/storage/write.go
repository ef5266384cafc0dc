//go:build cgo && libvirt_dlopen

package storage

import (
	"bytes"
	"fmt"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
)

// WithVolume runs f, the call named call, on volume name of pool.
func (a *Writer) WithVolume(pool, name, call string, f func(*libvirt.StorageVol) error) error {
	p, err := a.Pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	done := a.calling("LookupStorageVolByName " + pool + "/" + name)
	vol, err := p.LookupStorageVolByName(name)
	done()
	if err != nil {
		return fmt.Errorf("look up volume %s/%s on %s: %w", pool, name, a.Host, err)
	}
	defer vol.Free()
	done = a.calling(call + " of volume " + pool + "/" + name)
	err = f(vol)
	done()
	if err != nil {
		return fmt.Errorf("volume %s/%s on %s: %w", pool, name, a.Host, err)
	}
	return nil
}

// Pool looks up the storage pool name on the applier's host.
func (a *Writer) Pool(name string) (*libvirt.StoragePool, error) {
	done := a.calling("LookupStoragePoolByName " + name)
	p, err := a.C.LookupStoragePoolByName(name)
	done()
	if err != nil {
		return nil, fmt.Errorf("look up pool %s on %s: %w", name, a.Host, err)
	}
	return p, nil
}

// CreateVolume creates a raw volume, sparse, and uploads data into it
// when data is not nil (CreateUploaded: a half-uploaded volume is never
// taken for a complete seed).
func (a *Writer) CreateVolume(pool, name string, size uint64, data []byte) error {
	def := libvirtxml.StorageVolume{
		Name:       name,
		Capacity:   &libvirtxml.StorageVolumeSize{Value: size, Unit: "bytes"},
		Allocation: &libvirtxml.StorageVolumeSize{Value: 0, Unit: "bytes"},
		Target:     &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}},
	}
	if data != nil {
		return a.CreateUploaded(pool, def, bytes.NewReader(data), int64(len(data)))
	}
	p, err := a.Pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("volume %s: %w", name, err)
	}
	done := a.calling("StorageVolCreateXML " + pool + "/" + name)
	vol, err := p.StorageVolCreateXML(x, 0)
	done()
	if err != nil {
		return fmt.Errorf("create volume %s/%s on %s: %w", pool, name, a.Host, RefusedCreate(err))
	}
	vol.Free()
	return nil
}

// NotMadeError is the error of a call that creates a volume which the
// daemon answered with a refusal: it made no volume, so whatever is at
// that name is not site's.
type NotMadeError struct{ err error }

func (e NotMadeError) Error() string { return e.err.Error() }
func (e NotMadeError) Unwrap() error { return e.err }

// RefusedCreate marks err, from the call that creates a volume, as
// NotMadeError when the daemon answered it. A transient error (the
// connection lost mid-call) may have left the volume made, and an error
// of site's own making was no call at all: both stay as they are, so
// the claim stays and a later run sees what is there.
func RefusedCreate(err error) error {
	switch conn.Classify(err) {
	case "", backends.ClassTransient:
		return err
	}
	return NotMadeError{err}
}

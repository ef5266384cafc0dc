//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/storage"
)

// createFromBase makes a disk from its base volume: a qcow2 overlay
// whose backing store is the base (StorageVolCreateXML with a
// <backingStore>), or with Clone a full copy (StorageVolCreateXMLFrom)
// grown to the disk's size. libvirt runs qemu-img on the host for both.
func (a *applier) createFromBase(o op) error {
	pool, err := a.w().Pool(o.Pool)
	if err != nil {
		return err
	}
	defer pool.Free()
	if o.Clone {
		return a.cloneBase(pool, o)
	}
	def := libvirtxml.StorageVolume{
		Name:       o.Volume,
		Capacity:   &libvirtxml.StorageVolumeSize{Value: o.Bytes, Unit: "bytes"},
		Allocation: &libvirtxml.StorageVolumeSize{Value: 0, Unit: "bytes"},
		Target:     &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "qcow2"}},
		BackingStore: &libvirtxml.StorageVolumeBackingStore{Path: o.BasePath,
			Format: &libvirtxml.StorageVolumeTargetFormat{Type: o.BaseFormat}},
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("volume %s: %w", o.Volume, err)
	}
	done := a.calling("StorageVolCreateXML " + o.Pool + "/" + o.Volume)
	vol, err := pool.StorageVolCreateXML(x, 0)
	done()
	if err != nil {
		return fmt.Errorf("create volume %s/%s on %s as an overlay on %s: %w", o.Pool, o.Volume, a.host, o.Base, storage.RefusedCreate(err))
	}
	return vol.Free()
}

// cloneBase copies the base into a new volume of the base's format and
// size, then grows it to the disk's size. A copy that fails half-way is
// deleted, so the next run makes it again rather than take it as done.
func (a *applier) cloneBase(pool *libvirt.StoragePool, o op) error {
	done := a.calling("LookupStorageVolByName " + o.Pool + "/" + o.Base)
	base, err := pool.LookupStorageVolByName(o.Base)
	done()
	if err != nil {
		return fmt.Errorf("look up base volume %s/%s on %s: %w", o.Pool, o.Base, a.host, err)
	}
	defer base.Free()
	def := libvirtxml.StorageVolume{
		Name:     o.Volume,
		Capacity: &libvirtxml.StorageVolumeSize{Value: o.BaseBytes, Unit: "bytes"},
		Target:   &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: o.BaseFormat}},
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("volume %s: %w", o.Volume, err)
	}
	// qemu-img copies the base while the daemon holds this call.
	done = a.calling("StorageVolCreateXMLFrom " + o.Pool + "/" + o.Volume + " (a copy of " + o.Base + ")")
	vol, err := pool.StorageVolCreateXMLFrom(x, base, 0)
	done()
	if err != nil {
		return fmt.Errorf("copy base %s into volume %s/%s on %s: %w", o.Base, o.Pool, o.Volume, a.host, storage.RefusedCreate(err))
	}
	defer vol.Free()
	if o.Bytes <= o.BaseBytes {
		return nil
	}
	done = a.calling("Resize of volume " + o.Pool + "/" + o.Volume)
	err = vol.Resize(o.Bytes, 0)
	done()
	if err != nil {
		if derr := a.w().DeletePartial(vol, o.Pool+"/"+o.Volume); derr != nil {
			err = fmt.Errorf("%w (and deleting the copy failed: %v; delete %s/%s by hand)", err, derr, o.Pool, o.Volume)
		}
		return fmt.Errorf("grow the copy %s/%s on %s to %s: %w", o.Pool, o.Volume, a.host, domain.SizeString(o.Bytes), err)
	}
	return nil
}

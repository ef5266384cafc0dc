//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"fmt"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"
)

// withVolume runs f, the call named call, on volume name of pool.
func (a *applier) withVolume(pool, name, call string, f func(*libvirt.StorageVol) error) error {
	p, err := a.pool(pool)
	if err != nil {
		return err
	}
	defer p.Free()
	done := a.calling("LookupStorageVolByName " + pool + "/" + name)
	vol, err := p.LookupStorageVolByName(name)
	done()
	if err != nil {
		return fmt.Errorf("look up volume %s/%s on %s: %w", pool, name, a.host, err)
	}
	defer vol.Free()
	done = a.calling(call + " of volume " + pool + "/" + name)
	err = f(vol)
	done()
	if err != nil {
		return fmt.Errorf("volume %s/%s on %s: %w", pool, name, a.host, err)
	}
	return nil
}

// pool looks up the storage pool name on the applier's host.
func (a *applier) pool(name string) (*libvirt.StoragePool, error) {
	done := a.calling("LookupStoragePoolByName " + name)
	p, err := a.c.LookupStoragePoolByName(name)
	done()
	if err != nil {
		return nil, fmt.Errorf("look up pool %s on %s: %w", name, a.host, err)
	}
	return p, nil
}

// createVolume creates a raw volume, sparse, and uploads data into it
// when data is not nil (createUploaded: a half-uploaded volume is never
// taken for a complete seed).
func (a *applier) createVolume(pool, name string, size uint64, data []byte) error {
	def := libvirtxml.StorageVolume{
		Name:       name,
		Capacity:   &libvirtxml.StorageVolumeSize{Value: size, Unit: "bytes"},
		Allocation: &libvirtxml.StorageVolumeSize{Value: 0, Unit: "bytes"},
		Target:     &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}},
	}
	if data != nil {
		return a.createUploaded(pool, def, bytes.NewReader(data), int64(len(data)))
	}
	p, err := a.pool(pool)
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
		return fmt.Errorf("create volume %s/%s on %s: %w", pool, name, a.host, refusedCreate(err))
	}
	vol.Free()
	return nil
}

//go:build cgo && libvirt_dlopen

package domain

import "libvirt.org/go/libvirtxml"

// DiskOn finds the disk of def on volume pool/name, or on the file or
// block device path ("" matches no path), and returns its target
// device. A disk's backing chain is not its source: an overlay on a
// base does not attach the base.
func DiskOn(def *libvirtxml.Domain, pool, name, path string) (string, bool) {
	if def == nil || def.Devices == nil {
		return "", false
	}
	for _, d := range def.Devices.Disks {
		s := d.Source
		var on bool
		switch {
		case s == nil:
		case s.Volume != nil:
			on = s.Volume.Pool == pool && s.Volume.Volume == name
		case path == "":
		case s.File != nil:
			on = s.File.File == path
		case s.Block != nil:
			on = s.Block.Dev == path
		}
		if on {
			dev := ""
			if d.Target != nil {
				dev = d.Target.Dev
			}
			return dev, true
		}
	}
	return "", false
}

//go:build cgo && libvirt_dlopen

package hosts

import (
	"slices"

	"libvirt.org/go/libvirtxml"
)

// VolumeRefs maps each volume ("pool\x00name") to the domains whose
// definitions reference it: every domain's live definition while it
// runs, and the persistent definition of every domain but skip (whose
// persistent definition the caller is about to rewrite; with skipLive,
// skip is going away altogether and its live definition does not count).
func (h *Obs) VolumeRefs(skip string, skipLive bool) map[string][]string {
	out := map[string][]string{}
	add := func(def *libvirtxml.Domain, dom string) {
		if def == nil || def.Devices == nil {
			return
		}
		for _, d := range def.Devices.Disks {
			if d.Source != nil && d.Source.Volume != nil {
				k := d.Source.Volume.Pool + "\x00" + d.Source.Volume.Volume
				if !slices.Contains(out[k], dom) {
					out[k] = append(out[k], dom)
				}
			}
		}
	}
	for _, name := range h.DomainNames() {
		o := h.Domains[name]
		if o.Running && !(skipLive && name == skip) {
			add(o.Live, name)
		}
		if name != skip {
			add(o.Inactive, name)
		}
	}
	return out
}

// OwnerListed is the set of volumes (ownership.Volume.Key) that an owner
// element of a domain on the host lists: that domain's step deletes
// them when they are unwanted.
func (h *Obs) OwnerListed() map[string]bool {
	out := map[string]bool{}
	for _, o := range h.Domains {
		if o.Owner == nil {
			continue
		}
		for _, v := range o.Owner.Volumes {
			out[v.Key()] = true
		}
	}
	return out
}

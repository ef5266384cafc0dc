//go:build cgo && libvirt_dlopen

package storage

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/spelling"
)

// Volume looks a volume up by pool and name, once per run. A missing
// Volume is not an error; a missing or inactive pool is, and so is a
// file in the pool's directory that libvirt does not list (unlisted).
// declared is the pool as site.cue declares it, nil when it does not.
func (h *View) Volume(pool, name string, declared *model.Pool) (*Volume, error) {
	h.Lock()
	defer h.Unlock()
	if v, ok := h.vols[pool+"\x00"+name]; ok {
		return v, nil
	}
	p, err := h.Pool(pool)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	v := &Volume{}
	h.Set.Call()
	vol, err := p.LookupStorageVolByName(name)
	switch {
	case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
		if err := h.unlisted(p, pool, name, declared); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("look up volume %s in pool %s on %s: %w", name, pool, h.Host, err)
	default:
		defer vol.Free()
		h.Set.Call()
		info, err := vol.GetInfo()
		if err != nil {
			return nil, fmt.Errorf("read volume %s/%s on %s: %w", pool, name, h.Host, err)
		}
		v.Exists, v.Capacity, v.Format = true, info.Capacity, "raw"
		// The disk's driver type must match the volume's format: a qcow2
		// image attached as raw would show its header to the guest.
		h.Set.Call()
		x, err := vol.GetXMLDesc(0)
		if err != nil {
			return nil, fmt.Errorf("read volume %s/%s on %s: %w", pool, name, h.Host, err)
		}
		var def libvirtxml.StorageVolume
		if err := def.Unmarshal(x); err != nil {
			return nil, fmt.Errorf("parse volume %s/%s on %s: %w", pool, name, h.Host, err)
		}
		if def.Target != nil && def.Target.Format != nil && def.Target.Format.Type != "" {
			v.Format = def.Target.Format.Type
		}
		if def.Target != nil {
			v.Path = def.Target.Path
		}
		if def.BackingStore != nil {
			v.Backing = def.BackingStore.Path
		}
	}
	h.vols[pool+"\x00"+name] = v
	return v, nil
}

// Pool opens an active pool; the caller frees it. h.mu is held.
func (h *View) Pool(name string) (*libvirt.StoragePool, error) {
	if err, ok := h.pools[name]; ok && err != nil {
		return nil, err
	}
	h.Set.Call()
	p, err := h.Conn.LookupStoragePoolByName(name)
	if err != nil {
		if conn.IsCode(err, libvirt.ERR_NO_STORAGE_POOL) {
			advice := hint.Hint{Kind: hint.ByHand, Spec: fmt.Sprintf("declare it in site.cue (hosts: NAME: pools: %s: {type: \"dir\", path: DIR}) so site creates it", name),
				Command: fmt.Sprintf("virsh pool-define-as %s dir --target DIR; virsh pool-start %s", name, name)}
			err = NoPoolError{PoolMissing, hint.Errorf(advice, "storage pool %q does not exist on %s", name, h.Host)}
		} else {
			err = fmt.Errorf("look up storage pool %s on %s: %w", name, h.Host, err)
		}
		h.pools[name] = err
		return nil, err
	}
	if _, seen := h.pools[name]; !seen {
		h.Set.Call()
		active, err := p.IsActive()
		if err == nil && !active {
			err = NoPoolError{PoolInactive, fmt.Errorf("storage pool %q on %s is not active: start it (virsh pool-start %s)", name, h.Host, name)}
		}
		h.pools[name] = err
		if err != nil {
			p.Free()
			return nil, err
		}
	}
	return p, nil
}

// NoPoolError says a pool does not exist on the host or is not active,
// so its volumes cannot be read.
type NoPoolError struct {
	Why string // PoolMissing, PoolInactive
	error
}

func (e NoPoolError) Unwrap() error { return e.error }

// DeclaredVolume is volume for a volume whose pool site.cue declares
// (declared, nil for another pool): while the pool does not exist yet or
// is not active (its step makes and starts it before this volume's
// step), the volume is not an error but one whose NoPool says why
// libvirt could not read it. One in a pool that does not exist yet is
// read from the pool's directory where site can (newPoolVolume).
func (h *View) DeclaredVolume(pool, name string, declared *model.Pool) (*Volume, error) {
	v, err := h.Volume(pool, name, declared)
	var np NoPoolError
	if declared != nil && errors.As(err, &np) {
		if np.Why == PoolMissing {
			return h.newPoolVolume(declared, name), nil
		}
		return &Volume{NoPool: np.Why}, nil
	}
	return v, err
}

// Uploaded is declaredVolume for a volume site fills by uploading (a
// base image, a cloud-init seed): one with an upload marker beside it
// (see marker.go) is one whose upload has not finished, and reads
// as missing, with Partial set.
func (h *View) Uploaded(pool, name string, declared *model.Pool) (*Volume, error) {
	v, err := h.DeclaredVolume(pool, name, declared)
	if err != nil || !v.Exists {
		return v, err
	}
	ms, err := h.Markers(pool, name)
	if err != nil || len(ms) == 0 {
		return v, err
	}
	partial := *v
	partial.Exists, partial.Partial = false, true
	for _, m := range ms {
		partial.Markers = append(partial.Markers, m.Name)
	}
	return &partial, nil
}

// Markers lists the upload markers of volume name in pool (see
// marker.go), from one listing of the pool per observation.
func (h *View) Markers(pool, name string) ([]uploadmark.Marker, error) {
	h.Lock()
	defer h.Unlock()
	names, err := h.VolNames(pool)
	if err != nil {
		return nil, err
	}
	return uploadmark.In(names, name), nil
}

// VolNames lists the names of pool's volumes, once per observation;
// h.mu is held.
func (h *View) VolNames(pool string) ([]string, error) {
	if names, ok := h.names[pool]; ok {
		return names, nil
	}
	p, err := h.Pool(pool)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	h.Set.Call()
	names, err := p.ListStorageVolumes()
	if err != nil {
		return nil, fmt.Errorf("list the volumes of pool %s on %s: %w", pool, h.Host, err)
	}
	if h.names == nil {
		h.names = map[string][]string{}
	}
	h.names[pool] = names
	return names, nil
}

// VolumesThere names the volumes of pool for a message that did not
// find volume missing (", which holds a, b"; upload markers left out),
// with the one near it, if any (" (did you mean a?)"); "" when they
// cannot be listed.
func (h *View) VolumesThere(pool, missing string) string {
	h.Lock()
	names, err := h.VolNames(pool)
	h.Unlock()
	if err != nil {
		return ""
	}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ", which is empty"
	}
	return ", which holds " + someNames(out) + didYouMean(missing, out)
}

// PoolsThere names the host's storage pools for a message that did not
// find pool missing ("; pools there: a, b", with " (did you mean a?)"
// when one is near it), "" when they cannot be listed.
func (h *View) PoolsThere(missing string) string {
	h.Set.Call()
	pools, err := h.Conn.ListAllStoragePools(0)
	if err != nil {
		return ""
	}
	var out []string
	for _, p := range pools {
		if n, err := p.GetName(); err == nil {
			out = append(out, n)
		}
		_ = p.Free()
	}
	return "; pools there: " + someNames(out) + didYouMean(missing, out)
}

// didYouMean is " (did you mean NAME?)" for the one name in names near
// missing (spelling.Nearest, the rule of every "did you mean" in site),
// else "".
func didYouMean(missing string, names []string) string {
	if near := spelling.Nearest(missing, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// someNames lists names sorted, at most 20 of them, for a message.
func someNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	const most = 20
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

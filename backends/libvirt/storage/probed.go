//go:build cgo && libvirt_dlopen

package storage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/qcow2"
	"github.com/site-tools/site/compiler/hint"
)

// A volume's format, where no domain's definition gives it, is what
// libvirt probes from the file's first bytes, and those may be a
// guest's: a blank disk is a raw file the guest writes from its first
// sector. Some headers name other files that QEMU (for a disk) or
// qemu-img (for a copy of a base, which libvirt reads in the format it
// probed) then read: a backing store, which libvirt reports and the
// planner checks where it uses one (refuseProbedOverlay, base); a
// qcow2 external data file, which libvirt 9 does not report; a vmdk
// descriptor's extents, which it does not either. site takes from the
// probe only the formats whose every outside file it can see.

// probedFormatsTaken are the formats site takes from libvirt's probe:
// raw and an ISO hold only their own bytes, and a qcow2 image names
// other files only as its backing store and its external data file,
// both of which are checked. Every other format libvirt probes (vmdk,
// qed, vpc, vdi, vhdx, bochs, cloop, dmg, luks, ...) site neither makes
// nor reads, and some name files of their own.
var probedFormatsTaken = []string{"raw", "iso", "qcow2"}

// ProbedFiles says why volume pool/name, read as the format vol has by
// libvirt's probe, would have QEMU or qemu-img read another file than
// its own for it ("" when it would not): a format site does not take
// from a probe, or a qcow2 header naming an external data file. Its
// backing store is the caller's to check, as libvirt reports it.
func (h *View) ProbedFiles(pool, name string, vol *Volume) (string, error) {
	if vol.NoPool != "" {
		// Read from the directory of a pool not made yet, by site as
		// libvirt will (pooldir.go), which checked the same.
		return "", nil
	}
	if !slices.Contains(probedFormatsTaken, vol.Format) {
		return fmt.Sprintf("reads as a %s image, a format site does not take from a volume's first bytes (QEMU may read files its header names, as a vmdk descriptor's extents)", vol.Format), nil
	}
	if vol.Format != "qcow2" {
		return "", nil
	}
	head, err := h.VolumeHead(pool, name, headLen)
	if err != nil {
		return "", err
	}
	return qcow2DataFile(head), nil
}

// headLen is how much of a volume's start site reads: a qcow2 header
// to its feature bits, and every magic of otherFormats.
const headLen = qcow2.IncompatAt + 8

// CopiedFiles is probedFiles for a base a disk is copied from. libvirt
// copies a volume in the format it probes at the copy, which may not
// be the one it reported to the plan: it probes again whenever
// anything is uploaded into the pool, so the first bytes of a volume
// it last read otherwise (a disk of a domain undefined since its guest
// wrote them) are read as they are now, and a header there that names
// other files is refused as if libvirt had read it.
func (h *View) CopiedFiles(pool, name string, vol *Volume) (string, error) {
	why, err := h.ProbedFiles(pool, name, vol)
	if why != "" || err != nil || vol.NoPool != "" {
		return why, err
	}
	head, err := h.VolumeHead(pool, name, headLen)
	if err != nil {
		return "", err
	}
	if names := headerNamesFiles(head); names != "" {
		return fmt.Sprintf("was last read by libvirt as %s, but now begins with %s, which libvirt reads at its next probe of the pool (any upload into it) and copies it as", vol.Format, names), nil
	}
	return "", nil
}

// headerNamesFiles says which header head begins with when it may name
// other files than its own ("" when it does not): a qcow2 header
// naming a backing or an external data file, or a header of another
// format libvirt probes.
func headerNamesFiles(head []byte) string {
	if h, ok := qcow2.Parse(head); ok && len(head) >= 16 {
		switch {
		case h.DataFile:
			return "a qcow2 header whose data is in an external data file it names"
		case h.BackingOffset != 0:
			return "a qcow2 header naming a backing file"
		}
		return ""
	}
	for _, o := range otherFormats {
		if end := int(o.at) + len(o.magic); end <= len(head) && bytes.Equal(head[o.at:end], o.magic) {
			return "a " + o.name + " header, a format site does not take (it may name other files)"
		}
	}
	return ""
}

// qcow2DataFile says so when the qcow2 header head keeps the image's
// data in an external file, "" when it does not.
func qcow2DataFile(head []byte) string {
	// A version 2 header has no feature bits, and no data file.
	if h, ok := qcow2.Parse(head); !ok || !h.DataFile {
		return ""
	}
	return "reads as a qcow2 image whose data is in an external data file its header names (QEMU and qemu-img read that file for it)"
}

// VolumeHead reads the first n bytes of volume pool/name through the
// daemon (virStorageVolDownload), so that it works wherever the host
// is; once per run. Fewer come back from a shorter volume.
func (h *View) VolumeHead(pool, name string, n uint64) ([]byte, error) {
	h.Lock()
	defer h.Unlock()
	key := pool + "\x00" + name
	if b, ok := h.heads[key]; ok {
		return b, nil
	}
	b, err := h.downloadHead(pool, name, n)
	if err != nil {
		return nil, fmt.Errorf("read the header of volume %s/%s on %s, to see which files it names: %w", pool, name, h.Host, err)
	}
	if h.heads == nil {
		h.heads = map[string][]byte{}
	}
	h.heads[key] = b
	return b, nil
}

// downloadHead streams the first n bytes of pool/name; h.mu is held.
func (h *View) downloadHead(pool, name string, n uint64) ([]byte, error) {
	p, err := h.Pool(pool)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	h.Set.Call()
	vol, err := p.LookupStorageVolByName(name)
	if err != nil {
		return nil, conn.Plain(err)
	}
	defer vol.Free()
	h.Set.Call()
	st, err := h.Conn.NewStream(0)
	if err != nil {
		return nil, conn.Plain(err)
	}
	defer st.Free()
	h.Set.Call()
	if err := vol.Download(st, 0, n, 0); err != nil {
		_ = st.Abort()
		if conn.IsCode(err, libvirt.ERR_NO_SUPPORT) {
			// A driver or pool type that cannot download a volume
			// (libvirt's test driver) is taken at what libvirt
			// reports, as the README says.
			return nil, nil
		}
		return nil, conn.Plain(err)
	}
	return recvAll(st, n)
}

// recvAll reads st to its end (at most n bytes are asked for) and
// finishes it.
func recvAll(st *libvirt.Stream, n uint64) ([]byte, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n)
	for {
		k, err := st.Recv(buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = st.Abort()
			return nil, conn.Plain(err)
		}
		out = append(out, buf[:max(k, 0)]...)
	}
	if err := st.Finish(); err != nil {
		return nil, conn.Plain(err)
	}
	return out, nil
}

// PhysicalSize is the size of volume pool/name's file on the host
// (virStorageVolGetInfoFlags with VIR_STORAGE_VOL_GET_PHYSICAL).
func (h *View) PhysicalSize(pool, name string) (uint64, error) {
	h.Lock()
	defer h.Unlock()
	p, err := h.Pool(pool)
	if err != nil {
		return 0, err
	}
	defer p.Free()
	h.Set.Call()
	vol, err := p.LookupStorageVolByName(name)
	if err != nil {
		return 0, fmt.Errorf("look up volume %s/%s on %s: %w", pool, name, h.Host, conn.Plain(err))
	}
	defer vol.Free()
	h.Set.Call()
	info, err := vol.GetInfoFlags(libvirt.STORAGE_VOL_GET_PHYSICAL)
	if err != nil {
		return 0, fmt.Errorf("read the file size of volume %s/%s on %s: %w", pool, name, h.Host, conn.Plain(err))
	}
	return info.Allocation, nil
}

// StillReadAs fails unless libvirt still reads vol in format, the one
// the plan grew it in: libvirt grows a volume in the format it probes,
// and probes the pool again whenever anything is uploaded into it, so
// a header a running guest wrote since the plan (and an external data
// file it names) would be what qemu-img resize grows. format "" (a
// plan that did not say) is not checked.
func StillReadAs(vol *libvirt.StorageVol, format string) error {
	if format == "" {
		return nil
	}
	x, err := vol.GetXMLDesc(0)
	if err != nil {
		return fmt.Errorf("read it again before growing it: %w", conn.Plain(err))
	}
	var def libvirtxml.StorageVolume
	if err := def.Unmarshal(x); err != nil {
		return fmt.Errorf("read it again before growing it: %w", err)
	}
	now := "raw"
	if def.Target != nil && def.Target.Format != nil && def.Target.Format.Type != "" {
		now = def.Target.Format.Type
	}
	if now != format {
		return hint.Errorf(hint.Hint{Kind: hint.RunDiffAgain}, "the plan read it as %s, but libvirt now reads it as %s (its guest-written first bytes changed since) and would grow it so, following any file such a header names; nothing was grown", format, now)
	}
	return nil
}

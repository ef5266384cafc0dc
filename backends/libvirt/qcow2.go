//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"encoding/binary"
)

// qcow2's header (QEMU's docs/interop/qcow2.txt) is big-endian: the
// magic, the version at 4, the backing file's offset (8, 8 bytes) and
// name length (16, 4 bytes), the virtual size at 24; version 3 adds the
// incompatible feature bits at 72, whose bit 2 says the image's data is
// in an external file, named by a header extension, that QEMU opens
// unless told another. Site reads it in three places: a base image's
// file on this machine (image.go), a file in the directory of a pool
// not made yet (pooldir.go) and a volume's first bytes through the
// daemon (probed.go); all three read it here.
var qcow2Magic = []byte{'Q', 'F', 'I', 0xfb}

const (
	qcow2SizeEnd          = 32 // the fixed fields through the virtual size
	qcow2IncompatAt       = 72
	qcow2IncompatDataFile = 1 << 2
)

// qcow2Header is what site reads of a qcow2 header. A field the bytes
// given did not reach is zero.
type qcow2Header struct {
	Version       uint32
	BackingOffset uint64 // 0: no backing file
	BackingLen    uint32
	Size          uint64 // what the guest sees
	DataFile      bool   // the data is in an external file (version 3)
}

// parseQcow2 reads the qcow2 header head begins with; ok is false when
// head begins with no qcow2 magic and version.
func parseQcow2(head []byte) (h qcow2Header, ok bool) {
	if len(head) < 8 || !bytes.HasPrefix(head, qcow2Magic) {
		return h, false
	}
	be := binary.BigEndian
	h.Version = be.Uint32(head[4:8])
	if len(head) >= 16 {
		h.BackingOffset = be.Uint64(head[8:16])
	}
	if len(head) >= 20 {
		h.BackingLen = be.Uint32(head[16:20])
	}
	if len(head) >= qcow2SizeEnd {
		h.Size = be.Uint64(head[24:32])
	}
	if h.Version >= 3 && len(head) >= qcow2IncompatAt+8 {
		h.DataFile = be.Uint64(head[qcow2IncompatAt:])&qcow2IncompatDataFile != 0
	}
	return h, true
}

//go:build cgo && libvirt_dlopen

// Package qcow2 reads the header of a qcow2 image: its version, virtual
// size, backing file and external data file. Site reads it from a base
// image's file on this machine, from a file in the directory of a pool
// not made yet, and from a volume's first bytes through the daemon.
package qcow2

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
// file on this machine (package libvirt's image.go), a file in the directory of a pool
// not made yet (pooldir.go) and a volume's first bytes through the
// daemon (probed.go); all three read it here.
var Magic = []byte{'Q', 'F', 'I', 0xfb}

const (
	SizeEnd          = 32 // the fixed fields through the virtual size
	IncompatAt       = 72
	incompatDataFile = 1 << 2
)

// Header is what site reads of a qcow2 header. A field the bytes
// given did not reach is zero.
type Header struct {
	Version       uint32
	BackingOffset uint64 // 0: no backing file
	BackingLen    uint32
	Size          uint64 // what the guest sees
	DataFile      bool   // the data is in an external file (version 3)
}

// Parse reads the qcow2 header head begins with; ok is false when
// head begins with no qcow2 magic and version.
func Parse(head []byte) (h Header, ok bool) {
	if len(head) < 8 || !bytes.HasPrefix(head, Magic) {
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
	if len(head) >= SizeEnd {
		h.Size = be.Uint64(head[24:32])
	}
	if h.Version >= 3 && len(head) >= IncompatAt+8 {
		h.DataFile = be.Uint64(head[IncompatAt:])&incompatDataFile != 0
	}
	return h, true
}

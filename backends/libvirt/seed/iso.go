package seed

import (
	"encoding/binary"
	"sort"
)

// sector is the ISO 9660 logical block size.
const sector = 2048

// File is one file in the root directory of an image.
type File struct {
	// Name is the name a Linux mount shows (lower case, e.g. "user-data").
	// It is recorded upper case with an empty extension and version 1
	// ("USER-DATA.;1"), which Linux's default isofs name mapping turns
	// back into Name.
	Name string
	Data []byte
}

// WriteISO returns an ISO 9660 image (level 1 layout, one root directory,
// no Rock Ridge or Joliet) holding files, labelled volumeID.
//
// The bytes depend only on the arguments: files are sorted by name, every
// date field is ECMA-119's "not specified" and no host or time value is
// recorded, so equal inputs give byte-identical images. Nothing touches
// the file system.
func WriteISO(volumeID string, files []File) []byte {
	files = append([]File(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })

	// Layout: 16 system sectors, the primary volume descriptor (16), the
	// terminator (17), little- and big-endian path tables (18, 19), the
	// root directory (20 on), then each file's extent.
	const (
		pvdAt   = 16
		termAt  = 17
		lPathAt = 18
		mPathAt = 19
		rootAt  = 20
	)
	extents := make([]uint32, len(files))
	// Size the root directory first (extents do not change its size),
	// then place the files after it and encode it for real.
	rootSectors := sectorsFor(len(dirRecords(files, rootAt, 1, extents)))
	next := uint32(rootAt + rootSectors)
	for i, f := range files {
		extents[i] = next
		next += uint32(sectorsFor(len(f.Data)))
	}
	total := next
	root := dirRecords(files, rootAt, rootSectors, extents)

	img := make([]byte, int(total)*sector)
	pvd := img[pvdAt*sector : (pvdAt+1)*sector]
	pvd[0] = 1
	copy(pvd[1:6], "CD001")
	pvd[6] = 1
	padCopy(pvd[8:40], "LINUX")
	padCopy(pvd[40:72], volumeID)
	bothEndian32(pvd[80:88], total)
	bothEndian16(pvd[120:124], 1)
	bothEndian16(pvd[124:128], 1)
	bothEndian16(pvd[128:132], sector)
	const pathTableSize = 10
	bothEndian32(pvd[132:140], pathTableSize)
	binary.LittleEndian.PutUint32(pvd[140:144], lPathAt)
	binary.BigEndian.PutUint32(pvd[148:152], mPathAt)
	copy(pvd[156:190], dirRecord([]byte{0}, rootAt, uint32(rootSectors*sector), true))
	padCopy(pvd[190:318], "")
	padCopy(pvd[318:446], "")
	padCopy(pvd[446:574], "")
	padCopy(pvd[574:702], "SITE")
	padCopy(pvd[702:739], "")
	padCopy(pvd[739:776], "")
	padCopy(pvd[776:813], "")
	for _, at := range []int{813, 830, 847, 864} {
		unspecifiedDate(pvd[at : at+17])
	}
	pvd[881] = 1

	term := img[termAt*sector : (termAt+1)*sector]
	term[0] = 255
	copy(term[1:6], "CD001")
	term[6] = 1

	pathEntry(img[lPathAt*sector:], binary.LittleEndian, rootAt)
	pathEntry(img[mPathAt*sector:], binary.BigEndian, rootAt)

	copy(img[rootAt*sector:], root)
	for i, f := range files {
		copy(img[int(extents[i])*sector:], f.Data)
	}
	return img
}

// dirRecords returns the root directory's records: ".", "..", then one
// per file. A record never crosses a sector boundary (ECMA-119 6.8.1.1).
func dirRecords(files []File, rootAt, rootSectors int, extents []uint32) []byte {
	size := uint32(rootSectors * sector)
	recs := [][]byte{
		dirRecord([]byte{0}, rootAt, size, true),
		dirRecord([]byte{1}, rootAt, size, true),
	}
	for i, f := range files {
		recs = append(recs, dirRecord(identifier(f.Name), int(extents[i]), uint32(len(f.Data)), false))
	}
	var out []byte
	for _, r := range recs {
		if room := sector - len(out)%sector; len(r) > room {
			out = append(out, make([]byte, room)...)
		}
		out = append(out, r...)
	}
	return out
}

// identifier turns "user-data" into "USER-DATA.;1".
func identifier(name string) []byte {
	b := []byte(name)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return append(b, ".;1"...)
}

// dirRecord encodes one directory record (ECMA-119 9.1). The recording
// date stays all zero ("not specified").
func dirRecord(id []byte, extent int, length uint32, dir bool) []byte {
	n := 33 + len(id)
	if n%2 == 1 {
		n++
	}
	r := make([]byte, n)
	r[0] = byte(n)
	bothEndian32(r[2:10], uint32(extent))
	bothEndian32(r[10:18], length)
	if dir {
		r[25] = 2
	}
	bothEndian16(r[28:32], 1)
	r[32] = byte(len(id))
	copy(r[33:], id)
	return r
}

// pathEntry writes the single path table entry, for the root directory.
func pathEntry(b []byte, order binary.ByteOrder, rootAt uint32) {
	b[0] = 1
	order.PutUint32(b[2:6], rootAt)
	order.PutUint16(b[6:8], 1)
}

func unspecifiedDate(b []byte) {
	for i := 0; i < 16; i++ {
		b[i] = '0'
	}
	b[16] = 0
}

func padCopy(dst []byte, s string) {
	for i := range dst {
		dst[i] = ' '
	}
	copy(dst, s)
}

func bothEndian16(b []byte, v uint16) {
	binary.LittleEndian.PutUint16(b[0:2], v)
	binary.BigEndian.PutUint16(b[2:4], v)
}

func bothEndian32(b []byte, v uint32) {
	binary.LittleEndian.PutUint32(b[0:4], v)
	binary.BigEndian.PutUint32(b[4:8], v)
}

func sectorsFor(n int) int {
	if n == 0 {
		return 0
	}
	return (n + sector - 1) / sector
}

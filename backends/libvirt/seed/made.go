package seed

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// Made reports whether iso is, byte for byte, a seed Build made, and
// returns it with the hostname it was made for. The image's files are
// read back, the inputs recovered from them, and the image built again
// from those must be iso itself: nothing else reads as site's, neither
// a look-alike another tool wrote nor a seed cut short or changed
// since. site leftovers proves a seed site made this way, which no
// marker or owner element may still name.
func Made(iso []byte) (s *Seed, hostname string, ok bool) {
	files, ok := rootFiles(iso)
	if !ok {
		return nil, "", false
	}
	meta, user := files["meta-data"], files["user-data"]
	first, rest, _ := strings.Cut(meta, "\n")
	second, extra, _ := strings.Cut(rest, "\n")
	hostname, named := strings.CutPrefix(second, "local-hostname: ")
	if !strings.HasPrefix(first, "instance-id: ") || !named {
		return nil, "", false
	}
	s = Build(Input{Hostname: hostname, UserData: user, MetaData: extra, NetworkConfig: files["network-config"]})
	if !bytes.Equal(s.ISO, iso) {
		return nil, "", false
	}
	return s, hostname, true
}

// rootFiles reads the files of an image's root directory, as WriteISO
// lays them out, by the name a Linux mount shows; ok is false for
// anything that is not laid out so.
func rootFiles(iso []byte) (map[string]string, bool) {
	const pvdAt = 16 * sector
	if len(iso) < pvdAt+sector || iso[pvdAt] != 1 || string(iso[pvdAt+1:pvdAt+6]) != "CD001" {
		return nil, false
	}
	rootExtent, rootLen := extentOf(iso[pvdAt+156 : pvdAt+190])
	dir, ok := slice(iso, rootExtent, rootLen)
	if !ok {
		return nil, false
	}
	files := map[string]string{}
	for off := 0; off < len(dir); {
		n := int(dir[off])
		if n == 0 { // the rest of the sector is padding
			off = (off/sector + 1) * sector
			continue
		}
		if n < 34 || off+n > len(dir) || 33+int(dir[off+32]) > n {
			return nil, false
		}
		rec := dir[off : off+n]
		off += n
		id := string(rec[33 : 33+int(rec[32])])
		if id == "\x00" || id == "\x01" {
			continue
		}
		name, plain := strings.CutSuffix(id, ".;1")
		extent, length := extentOf(rec)
		data, ok := slice(iso, extent, length)
		if !plain || !ok {
			return nil, false
		}
		files[strings.ToLower(name)] = string(data)
	}
	return files, true
}

// extentOf reads a directory record's extent and data length (the
// little-endian halves).
func extentOf(rec []byte) (extent, length uint32) {
	return binary.LittleEndian.Uint32(rec[2:6]), binary.LittleEndian.Uint32(rec[10:14])
}

// slice is length bytes of iso from sector extent; ok is false when
// they are not all in it.
func slice(iso []byte, extent, length uint32) ([]byte, bool) {
	start := uint64(extent) * sector
	if start+uint64(length) > uint64(len(iso)) {
		return nil, false
	}
	return iso[start : start+uint64(length)], true
}

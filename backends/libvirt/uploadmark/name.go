//go:build cgo && libvirt_dlopen

package uploadmark

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Beat is how often a run that uploads grows its marker; a marker
// that did not grow for StaleAfter (three beats) is stale. Tests
// shorten it.
var Beat = 5 * time.Second

// StaleAfter is how long a marker that does not grow is taken for
// stale: three beats.
func StaleAfter() time.Duration { return 3 * Beat }

// NoteSize is the size of a marker's note, and its capacity before the
// first beat.
const NoteSize = 512

// genDigits is room left for a generation suffix (".1234567")
// within a file name's 255 bytes.
const genDigits = 8

// UploadingName is the first marker volume of an upload into name. A
// name too long to carry the marker's dot, suffix and a generation
// within 255 bytes gets a marker named by its hash.
func UploadingName(name string) string {
	if n := "." + name + ".uploading"; len(n) <= 255-genDigits {
		return n
	}
	sum := sha256.Sum256([]byte(name))
	return ".uploading-" + hex.EncodeToString(sum[:16])
}

// Name is the marker of generation gen of an upload into name.
func Name(name string, gen int) string {
	if gen == 0 {
		return UploadingName(name)
	}
	return UploadingName(name) + "." + strconv.Itoa(gen)
}

// Marker is one marker volume of an upload.
type Marker struct {
	Name string
	Gen  int
}

// In picks the markers of an upload into name out of a pool's
// volume names, oldest generation first.
func In(vols []string, name string) []Marker {
	base := UploadingName(name)
	var out []Marker
	for _, v := range vols {
		switch {
		case v == base:
			out = append(out, Marker{v, 0})
		case strings.HasPrefix(v, base+"."):
			if g, err := strconv.Atoi(v[len(base)+1:]); err == nil && g > 0 && strconv.Itoa(g) == v[len(base)+1:] {
				out = append(out, Marker{v, g})
			}
		}
	}
	slices.SortFunc(out, func(a, b Marker) int { return a.Gen - b.Gen })
	return out
}

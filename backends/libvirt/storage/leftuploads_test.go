//go:build cgo && libvirt_dlopen

package storage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/uploadmark"
)

// TestUploadsInGroupsMarkersByVolume: markers are grouped by the
// volume they mark, oldest first, a hashed marker by the volume whose
// hash it is (or by none when no such volume is there); a name that
// only looks like a marker is none.
func TestUploadsInGroupsMarkersByVolume(t *testing.T) {
	long := strings.Repeat("l", 240)
	gone := strings.Repeat("g", 240)
	names := []string{"a.raw", uploadmark.Name("a.raw", 2), uploadmark.Name("a.raw", 0), long, uploadmark.Name(long, 0), uploadmark.Name(gone, 1),
		".b.uploading.01", ".uploading", "..uploading", "c.uploading", uploadmark.Name("d", 0) + ".x"}
	var got []string
	for _, u := range uploadsIn(names) {
		got = append(got, fmt.Sprintf("%q %v", u.volume, u.markerNames()))
	}
	want := []string{
		fmt.Sprintf("%q %v", "", []string{uploadmark.Name(gone, 1)}),
		fmt.Sprintf("%q %v", "a.raw", []string{uploadmark.Name("a.raw", 0), uploadmark.Name("a.raw", 2)}),
		fmt.Sprintf("%q %v", long, []string{uploadmark.Name(long, 0)}),
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("uploadsIn =\n%v\nwant\n%v", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

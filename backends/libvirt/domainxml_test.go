package libvirt

import "testing"

func TestSizeString(t *testing.T) {
	for _, tc := range []struct {
		in   uint64
		want string
	}{
		{2 << 30, "2GiB"},
		{20 << 30, "20GiB"},
		{64 << 20, "64MiB"},
		{47104, "46KiB"},
		{1536 << 20, "1536MiB"},
		{1 << 40, "1TiB"},
		{1000, "1000B"},
		{0, "0B"},
	} {
		if got := sizeString(tc.in); got != tc.want {
			t.Errorf("sizeString(%d): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

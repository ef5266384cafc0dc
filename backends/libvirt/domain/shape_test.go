//go:build cgo && libvirt_dlopen

package domain

import (
	"slices"
	"testing"
)

// TestDiffShapesNICs: a MAC the spec leaves to libvirt is not compared
// and reads as libvirt's, not as an empty "mac="; no NICs reads as
// "(none)", not as an empty string.
func TestDiffShapesNICs(t *testing.T) {
	live := "network=lan model=virtio mac=52:54:00:12:34:56"
	for _, tc := range []struct {
		name       string
		have, want []string
		diff       []Field
	}{
		{"MAC left to libvirt", []string{live}, []string{"network=lan model=virtio mac="}, nil},
		{"NIC added", nil, []string{"network=lan model=virtio mac="},
			[]Field{{"nics", "(none)", "network=lan model=virtio mac=(libvirt's)"}}},
		{"last NIC removed", []string{live}, nil,
			[]Field{{"nics", live, "(none)"}}},
		{"network changed", []string{live}, []string{"network=dmz model=virtio mac="},
			[]Field{{"nics", "network=lan model=virtio mac=(libvirt's)", "network=dmz model=virtio mac=(libvirt's)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(Shape{NICs: tc.have}, Shape{NICs: tc.want})
			if !slices.Equal(got, tc.diff) {
				t.Errorf("got %+v, want %+v", got, tc.diff)
			}
		})
	}
}

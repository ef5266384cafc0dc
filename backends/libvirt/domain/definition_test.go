//go:build cgo && libvirt_dlopen

package domain

import (
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/model"
)

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
		if got := SizeString(tc.in); got != tc.want {
			t.Errorf("SizeString(%d): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSeedOnVirtioSCSI: the seed cdrom goes on SCSI with a virtio-scsi
// controller (Debian's cloud kernel has no AHCI driver, so a SATA seed
// is never read); a SCSI controller already there is left as it is, and
// a VM without a seed gets none.
func TestSeedOnVirtioSCSI(t *testing.T) {
	zero := uint(0)
	for _, tc := range []struct {
		name      string
		seed      string
		have      []libvirtxml.DomainController
		wantModel string // of SCSI controller 0, "" for none
	}{
		{"seed, no controller", "seed-1.iso", nil, "virtio-scsi"},
		{"seed, LSI controller kept", "seed-1.iso", []libvirtxml.DomainController{{Type: "scsi", Index: &zero, Model: "lsilogic"}}, "lsilogic"},
		{"no seed", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := &model.VM{Name: "v", VCPUs: 1, MemoryBytes: 64 << 20}
			w := &Want{VM: vm, SeedPool: "default", SeedName: tc.seed, Owner: &ownership.Owner{Tenant: "t"}}
			def := New("v", "qemu")
			def.Devices.Controllers = tc.have
			w.Apply(def, "")
			got := ""
			for _, c := range def.Devices.Controllers {
				if c.Type == "scsi" {
					got = c.Model
				}
			}
			if got != tc.wantModel {
				t.Errorf("SCSI controller model %q, want %q", got, tc.wantModel)
			}
			if cd := ShapeOf(def, w.Owner).CDROMs; tc.seed != "" && (len(cd) != 1 || cd[0] != "sda scsi default/"+tc.seed) {
				t.Errorf("cdroms %q, want the seed on sda scsi", cd)
			}
		})
	}
}

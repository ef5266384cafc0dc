package compiler

import (
	"strings"
	"testing"
)

// More tests of the contract (trust_test.go holds the first ones).

// TestTrust_SeedName: a tenant's disk, or its base, named like a
// cloud-init seed (seed-<16 hex digits>.iso) passed vet. A seed's name
// is a hash of the VM's name and cloud-init text, which the tenants'
// files show, and site uploads no seed whose volume is already there: a
// tenant that made the volume of another's seed first (a clone of its
// own seed) booted that tenant's guest from its own user-data. Seed
// names are site's alone.
func TestTrust_SeedName(t *testing.T) {
	diags := loadCase(t, "trust_seed_name")
	for path, want := range map[string]string{
		"tenants.evil.vms.plant.disks.0.name": `volume name "seed-0123456789abcdef.iso" is how site names a cloud-init seed`,
		"tenants.evil.vms.plant.disks.0.base": `volume name "seed-fedcba9876543210.iso" is how site names a cloud-init seed`,
	} {
		if msgs := diagAt(diags, path); len(msgs) != 1 || !strings.Contains(msgs[0], want) {
			t.Errorf("at %s: got %q, want one error containing %q", path, msgs, want)
		}
	}
	for _, prefix := range []string{"tenants.victim", "tenants.evil.vms.own", "tenants.evil.vms.ok"} {
		if msgs := diagAt(diags, prefix); len(msgs) > 0 {
			t.Errorf("%s is the tenant's own, got errors %q", prefix, msgs)
		}
	}
	if len(diags) != 2 {
		t.Errorf("got %d diagnostics, want 2:\n%v", len(diags), diags)
	}
}

package model

import "regexp"

// SeedVolumeName is how the libvirt driver names a VM's cloud-init seed:
// a hash of the VM's name and cloud-init text, which the tenants' files
// show. The driver uploads no seed whose volume is there already, so a
// tenant's disk by that name (made first, a copy of its own seed) would
// be another tenant's guest's seed; vet refuses it as a tenant's disk or
// base, and site leftovers knows a seed by it. It lives in the model
// because both read it and neither may import the other.
var SeedVolumeName = regexp.MustCompile(`^seed-[0-9a-f]{16}\.iso$`)

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/compiler/model"
)

// TestTrust_LeaseOfAnotherTenantsDomain: a VM publishing address
// "lease" names its domain by name only, and a domain of that name on
// the host may be another tenant's (evil declares a VM db where
// victim's db runs: evil's VM step is refused, but its zone, planned on
// its own with --only dns or --target, read db's lease) or one site
// does not manage. Its address is not the tenant's to publish: the
// read is refused, naming the owner, before any lease is read.
func TestTrust_LeaseOfAnotherTenantsDomain(t *testing.T) {
	nic := `<interface type="network"><mac address="52:54:00:aa:00:01"/><source network="default"/></interface>`
	withNIC := func(name, tenant string) string {
		return strings.Replace(testDomain(name, tenant), "<devices>", "<devices>"+nic, 1)
	}
	r := newRig(t, libvirttest.TestURI(t, libvirttest.Fixture{
		Domains:  []string{withNIC("db", "victim"), withNIC("legacy", "")},
		Networks: []string{`<network><name>default</name><bridge name="virbr0"/><ip address="192.168.122.1" netmask="255.255.255.0"><dhcp><range start="192.168.122.2" end="192.168.122.254"/></dhcp></ip></network>`},
	}), Options{})
	for _, tc := range []struct{ vm, tenant, want string }{
		{"db", "evil", `domain db on ` + r.host + ` belongs to tenant "victim", not "evil"`},
		{"legacy", "evil", `domain legacy on ` + r.host + ` carries no site owner element`},
	} {
		addr, err := r.d.Lease(context.Background(), model.LeaseRef{Host: r.host, VM: tc.vm, Tenant: tc.tenant})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("lease of %s for tenant %s: %q, %v; want an error containing %q", tc.vm, tc.tenant, addr, err, tc.want)
		}
	}
	// The owner's own read goes on to the leases (which the test
	// driver cannot list).
	if _, err := r.d.Lease(context.Background(), model.LeaseRef{Host: r.host, VM: "db", Tenant: "victim"}); err == nil || strings.Contains(err.Error(), "tenant") {
		t.Errorf("lease of db for its own tenant: %v, want only the test driver's missing GetDHCPLeases", err)
	}
}

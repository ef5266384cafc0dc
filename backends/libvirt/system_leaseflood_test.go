//go:build cgo && libvirt_dlopen

package libvirt

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/netstep"
	"github.com/site-tools/site/compiler/model"
)

// waitLeases waits until network's dnsmasq reports n leases.
func waitLeases(t *testing.T, r *rig, network string, n int) {
	t.Helper()
	for len(networkLeases(t, r, network)) < n {
		if libvirttest.DnsmasqPID(network) == 0 {
			t.Fatalf("dnsmasq of %s stopped before it reported %d leases", network, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSystemLeaseFloodIsCounted: how many DHCP leases a network holds
// is its guests' to choose (one guest takes a lease per client
// identifier it makes up, up to the network's whole range, 65533 on a
// /16), so the refusal of a network in use counts them and names only
// the first few, rather than carry every one into the plan, its JSON
// and a pull request's comment.
func TestSystemLeaseFloodIsCounted(t *testing.T) {
	r, s := systemRig(t)
	keep := &model.Network{Tenant: tenant, Name: s.Name("a-keep"), Host: r.host, CIDR: s.CIDR(t)}
	cidr := s.CIDR(t)
	leased := &model.Network{Tenant: tenant, Name: s.Name("flood"), Host: r.host, CIDR: cidr}
	r.converge(r.graph(nil, []*model.Network{keep, leased}))
	br, _ := wantBridgeUp(t, r, leased.Name, strings.TrimSuffix(cidr, "0/24")+"1/24")
	const n = 8
	s.TakeLeases(t, br, n)
	waitLeases(t, r, leased.Name, n)

	obs, _ := r.diff(r.graph(nil, []*model.Network{keep}))
	if len(obs.Plan.Changes) != 1 {
		t.Fatalf("got plan %q, want the leased network's delete refused", lines(obs.Plan))
	}
	c := obs.Plan.Changes[0]
	if want := fmt.Sprintf("in use: %d DHCP leases (", n); !strings.Contains(c.Reason, want) {
		t.Errorf("reason %q does not say %q", c.Reason, want)
	}
	if got := strings.Count(c.Reason, strings.TrimSuffix(cidr, "0/24")); got > netstep.MaxLeasesNamed {
		t.Errorf("reason %q names %d leases, want at most %d", c.Reason, got, netstep.MaxLeasesNamed)
	}
	if users, _ := c.Before["in use"].([]string); len(users) > netstep.MaxLeasesNamed+1 {
		t.Errorf("in use %q: %d entries, want at most %d leases and the count of the rest", users, len(users), netstep.MaxLeasesNamed)
	}
}

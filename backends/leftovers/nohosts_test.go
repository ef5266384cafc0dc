package leftovers

import (
	"context"
	"errors"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// TestHostsInABuildWithoutLibvirt: in a build without libvirt each host
// site.cue declares is reported unread with the reason the build gives
// (how to get one with libvirt), never as holding nothing.
func TestHostsInABuildWithoutLibvirt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noHosts error
		want    string
	}{
		{"reason given", errors.New("this site was built without libvirt; install one with it"), "this site was built without libvirt; install one with it"},
		{"no reason", nil, "this build of site has no libvirt backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Finder{NoHosts: tc.noHosts, Run: runstate.Start(backends.NewRun())}
			r := f.Find(context.Background(), Input{Hosts: map[string]string{"kvm": "qemu:///system"}})
			if len(r.Hosts) != 1 || r.Hosts[0].Error != tc.want || !r.Unread() {
				t.Errorf("got hosts %+v (unread %v), want one host unread with %q", r.Hosts, r.Unread(), tc.want)
			}
		})
	}
}

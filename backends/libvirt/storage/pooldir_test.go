//go:build cgo && libvirt_dlopen

package storage

import (
	"testing"

	"github.com/site-tools/site/backends/libvirt/hosts"
)

// TestWhereDaemonRuns: site reads a missing pool's directory itself only
// where the daemon it opens runs on this machine.
func TestWhereDaemonRuns(t *testing.T) {
	for _, tc := range []struct {
		host, mapped string
		want         DaemonPlace
	}{
		{"qemu:///system", "", DaemonLocal},
		{"qemu:///session", "qemu+unix:///session?socket=/tmp/s/libvirt-sock", DaemonLocal},
		{"test:///default", "", DaemonTest},
		{"qemu:///system", "test:///tmp/node.xml", DaemonTest},
		{"qemu+ssh://kvm1/system", "", "the daemon of qemu+ssh://kvm1/system runs on another machine"},
		{"qemu:///system", "qemu+tcp://localhost/system", "the daemon of qemu+tcp://localhost/system runs on another machine"},
		{"qemu+ssh://ops:secret@kvm1/system", "", "the daemon of qemu+ssh://ops:xxxxx@kvm1/system runs on another machine"},
	} {
		t.Run(tc.host+" "+tc.mapped, func(t *testing.T) {
			opts := hosts.Options{}
			if tc.mapped != "" {
				opts.URIMap = map[string]string{tc.host: tc.mapped}
			}
			h := &View{Obs: &hosts.Obs{Host: tc.host, Set: hosts.New(opts)}}
			if got := h.WhereDaemonRuns(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

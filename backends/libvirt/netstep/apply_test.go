//go:build cgo && libvirt_dlopen

package netstep

import (
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends/libvirt/hosts"
)

// TestNetworkApplyRetriesOnlyEnsureOps is libvirt's
// TestApplyRetriesOnlyEnsureOps for network ops.
func TestNetworkApplyRetriesOnlyEnsureOps(t *testing.T) {
	s := hosts.New(hosts.Options{})
	t.Cleanup(func() { _ = s.Close() })
	host := "test:///default"
	c, err := s.Conn(host)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind      OpKind
		name      string
		wantTries int
	}{
		{OpDefine, "define", hosts.RetryTries},
		{OpAutostart, "autostart", hosts.RetryTries},
		{OpStart, "start", 1},
		{OpHostAdd, "dhcp host add", 1},
		{OpHostDelete, "dhcp host delete", 1},
		{OpDestroy, "destroy", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Sleep = func(time.Duration) {}
			tries := 0
			before := s.Calls()
			got, err := New(s).doRetrying(c, host, Op{Kind: tt.kind, Name: "lan"}, func(_ *libvirt.Connect, _ string, o Op) error {
				if o.Kind != tt.kind {
					t.Errorf("got op %d, want %d", o.Kind, tt.kind)
				}
				tries++
				return libvirt.Error{Code: libvirt.ERR_SYSTEM_ERROR, Domain: libvirt.FROM_RPC, Message: "Cannot recv data: Connection reset by peer"}
			})
			if err == nil {
				t.Fatal("got no error from an op that always fails")
			}
			if got == nil {
				t.Error("got no connection back for later ops")
			}
			if tries != tt.wantTries {
				t.Errorf("got %d tries, want %d", tries, tt.wantTries)
			}
			if calls, want := s.Calls()-before, int64(tt.wantTries-1); calls != want {
				t.Errorf("got %d libvirt calls counted, want %d", calls, want)
			}
		})
	}
}

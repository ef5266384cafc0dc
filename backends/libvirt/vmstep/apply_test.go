//go:build cgo && libvirt_dlopen

package vmstep

import (
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// TestApplyRetriesOnlyEnsureOps feeds every VM op kind a transient
// failure on every try: the "ensure" ops are tried hosts.RetryTries times, on
// a connection checked (and reopened if dead) before each retry, and
// every other op exactly once.
func TestApplyRetriesOnlyEnsureOps(t *testing.T) {
	s := &hostSet{hosts.New(hosts.Options{})}
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
		{OpSetMetadata, "set metadata", hosts.RetryTries},
		{OpSetAutostart, "set autostart", hosts.RetryTries},
		{OpCreateVolume, "create volume", 1},
		{OpUploadSeed, "upload seed", 1},
		{OpResizeVolume, "resize volume", 1},
		{OpDeleteVolume, "delete volume", 1},
		{OpClearUpload, "clear a left upload", 1},
		{OpMemoryLive, "live memory", 1},
		{OpVCPUsLive, "live vcpus", 1},
		{OpStart, "start", 1},
		{OpStop, "stop", 1},
		{OpRestart, "restart", 1},
		{OpUndefine, "undefine", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Sleep = func(time.Duration) {}
			tries := 0
			a := &applier{d: s, c: c, host: host, res: &backends.StepResult{}, try: func(o op) error {
				if o.Kind != tt.kind {
					t.Errorf("got op %d, want %d", o.Kind, tt.kind)
				}
				tries++
				return libvirt.Error{Code: libvirt.ERR_RPC, Domain: libvirt.FROM_RPC, Message: "Cannot recv data: Connection reset by peer"}
			}}
			before := s.Calls()
			err := a.do(op{Kind: tt.kind, Domain: "web"})
			if err == nil {
				t.Fatal("got no error from an op that always fails")
			}
			if tries != tt.wantTries {
				t.Errorf("got %d tries, want %d", tries, tt.wantTries)
			}
			// The injected op makes no libvirt call; each retry's
			// connection check (IsAlive) is one, and is counted.
			if got, want := s.Calls()-before, int64(tt.wantTries-1); got != want {
				t.Errorf("got %d libvirt calls counted, want %d", got, want)
			}
		})
	}
}

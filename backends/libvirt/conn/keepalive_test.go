//go:build cgo && libvirt_dlopen

package conn

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"libvirt.org/go/libvirt"
)

// TestKeepAliveCloseSaysWhatToCheck: a call that keepalive failed in
// apply, which is not retried (it may have changed something), says
// that the daemon stopped answering, what to check, and how to see
// whether it changed anything; it said only to re-run when the daemon
// answers.
func TestKeepAliveCloseSaysWhatToCheck(t *testing.T) {
	cause := libvirt.Error{Code: libvirt.ERR_INTERNAL_ERROR, Domain: libvirt.FROM_RPC, Message: "internal error: connection closed due to keepalive timeout"}
	err := Explain(fmt.Errorf("start domain web on qemu:///system: %w", cause))
	wantAll(t, err,
		"start domain web on qemu:///system: internal error: connection closed due to keepalive timeout",
		"the libvirt daemon stopped answering site's keepalive probes",
		"check that it runs and is not stopped or hung",
		"site diff shows whether this call changed anything")
}

// TestKeepAliveEffective: zero fields take the defaults, and the
// interval is whole seconds of at least one, as libvirt counts them (a
// zero interval would turn keepalive off).
func TestKeepAliveEffective(t *testing.T) {
	for _, tc := range []struct {
		in, want KeepAlive
	}{
		{KeepAlive{}, DefaultKeepAlive},
		{KeepAlive{Interval: 2 * time.Second}, KeepAlive{Interval: 2 * time.Second, Count: DefaultKeepAlive.Count}},
		{KeepAlive{Count: 1}, KeepAlive{Interval: DefaultKeepAlive.Interval, Count: 1}},
		{KeepAlive{Interval: 300 * time.Millisecond, Count: 2}, KeepAlive{Interval: time.Second, Count: 2}},
		{KeepAlive{Interval: 2600 * time.Millisecond, Count: 2}, KeepAlive{Interval: 3 * time.Second, Count: 2}},
	} {
		if got := tc.in.Effective(); got != tc.want {
			t.Errorf("%+v.Effective() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if got := DefaultKeepAlive.Silence(); got != 20*time.Second {
		t.Errorf("the default keepalive gives a daemon up after %s of silence, want the 20s the README says", got)
	}
}

// wantAll fails t unless err holds every one of want.
func wantAll(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error from a daemon that does not answer")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}

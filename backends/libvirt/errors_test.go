//go:build cgo && libvirt_dlopen

package libvirt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// TestRetry runs an injected operation that fails transiently N times,
// counting tries and the waits between them (no real waiting).
func TestRetry(t *testing.T) {
	transient := libvirt.Error{Code: libvirt.ERR_RPC, Domain: libvirt.FROM_RPC, Message: "Cannot recv data: Connection reset by peer"}
	tests := []struct {
		name      string
		failures  int
		fail      error
		wantTries int
		wantErr   bool
	}{
		{"succeeds at once", 0, transient, 1, false},
		{"one transient failure", 1, transient, 2, false},
		{"two transient failures", 2, transient, 3, false},
		{"transient until the bound", 3, transient, hosts.RetryTries, true},
		{"transient forever", 100, transient, hosts.RetryTries, true},
		{"conflict is not retried", 100, libvirt.Error{Code: libvirt.ERR_OPERATION_INVALID, Message: "domain is already running"}, 1, true},
		{"auth is not retried", 100, libvirt.Error{Code: libvirt.ERR_AUTH_FAILED, Message: "authentication failed"}, 1, true},
		{"invalid is not retried", 100, libvirt.Error{Code: libvirt.ERR_XML_ERROR, Message: "XML error"}, 1, true},
		{"site's own error is not retried", 100, errors.New("parse domain XML: EOF"), 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(Options{})
			var waits []time.Duration
			d.Sleep = func(w time.Duration) { waits = append(waits, w) }
			tries := 0
			err := d.Retry(func() error {
				tries++
				if tries <= tt.failures {
					return fmt.Errorf("list domains on h: %w", tt.fail)
				}
				return nil
			})
			if tries != tt.wantTries {
				t.Errorf("got %d tries, want %d", tries, tt.wantTries)
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("got error %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, tt.fail) {
				t.Errorf("got %v, want the last try's error %v", err, tt.fail)
			}
			if len(waits) != tries-1 {
				t.Fatalf("got %d waits, want one between each of %d tries", len(waits), tries)
			}
			// The wait doubles per try; up to half of it is jitter.
			base := hosts.RetryBackoff
			for i, w := range waits {
				if w < base/2 || w > base {
					t.Errorf("wait %d: got %v, want between %v and %v", i, w, base/2, base)
				}
				base *= 2
			}
		})
	}
}

// TestRetryStopsAtInterrupt: once the run is interrupted, a call that
// failed transiently is not tried again, whether the interrupt came
// during the call or during the wait for the next try (issue 27: after
// Ctrl-C nothing is sent that was not on its way already).
func TestRetryStopsAtInterrupt(t *testing.T) {
	transient := libvirt.Error{Code: libvirt.ERR_RPC, Domain: libvirt.FROM_RPC, Message: "Cannot recv data: Connection reset by peer"}
	for _, tc := range []struct {
		name      string
		inCall    bool // interrupt during the first call, else during the first wait
		wantTries int
	}{
		{"interrupted during the call", true, 1},
		{"interrupted while waiting to retry", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runstate.Start(&backends.Run{})
			d := New(Options{Run: run})
			waits := 0
			d.Sleep = func(time.Duration) {
				waits++
				if !tc.inCall {
					runstate.Interrupts(run).Interrupt()
				}
			}
			tries := 0
			err := d.Retry(func() error {
				tries++
				if tc.inCall {
					runstate.Interrupts(run).Interrupt()
				}
				return fmt.Errorf("list domains on h: %w", transient)
			})
			if tries != tc.wantTries {
				t.Errorf("got %d tries, want %d", tries, tc.wantTries)
			}
			if !errors.As(err, new(*backends.NotRetriedError)) || !errors.Is(err, transient) {
				t.Errorf("got %v, want the call's error, saying it was not tried again", err)
			}
			if tc.inCall && waits != 0 {
				t.Errorf("got %d waits after the interrupt, want none", waits)
			}
		})
	}
}

// TestObserveRetriesUnreachableDaemon points a host at a socket nobody
// listens on: libvirt's real connect error is transient, so observing
// tries hosts.RetryTries times (each try one counted connect call) and the
// step's error says what libvirt said, its class and what to do.
func TestObserveRetriesUnreachableDaemon(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "no-daemon", "libvirt-sock")
	d := New(Options{URIMap: map[string]string{"qemu:///session": "qemu+unix:///session?socket=" + sock}})
	t.Cleanup(func() { _ = d.Close() })
	waits := 0
	d.Sleep = func(time.Duration) { waits++ }
	_, err := d.observe("qemu:///session")
	if err == nil {
		t.Fatal("observed a host whose daemon is not there")
	}
	if got := conn.Classify(err); got != backends.ClassTransient {
		t.Errorf("got class %q for %v, want %q", got, err, backends.ClassTransient)
	}
	if got := d.Calls(); got != hosts.RetryTries {
		t.Errorf("got %d libvirt calls, want %d connect tries", got, hosts.RetryTries)
	}
	if waits != hosts.RetryTries-1 {
		t.Errorf("got %d waits, want %d", waits, hosts.RetryTries-1)
	}
	msg := conn.Explain(err).Error()
	for _, want := range []string{sock, "libvirt transient error", "re-run when the daemon answers"} {
		if !strings.Contains(msg, want) {
			t.Errorf("got %q, want it to contain %q", msg, want)
		}
	}
}

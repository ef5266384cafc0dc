//go:build cgo && libvirt_dlopen

package libvirt

import (
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
)

// hungSocket is a libvirt socket that accepts connections and never
// answers, as a libvirtd stopped with SIGSTOP does. Its close (called
// when the test ends, or before) closes what it accepted, which fails
// the call that waits on it.
func hungSocket(t *testing.T) (uri string, close func()) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "libvirt-sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	var once sync.Once
	close = func() {
		once.Do(func() {
			l.Close()
			mu.Lock()
			defer mu.Unlock()
			for _, c := range held {
				c.Close()
			}
		})
	}
	t.Cleanup(close)
	return "qemu+unix:///session?socket=" + sock, close
}

// TestHungHostIsNamed: connecting to a daemon that never answers is
// named to the run, with the host as the spec writes it and the URI it
// is opened as; before, nothing named it, and a run stuck there could
// not say on what.
func TestHungHostIsNamed(t *testing.T) {
	if err := Available(); err != nil {
		t.Fatal(err)
	}
	uri, unhang := hungSocket(t)
	slow := make(chan backends.Awaited, 16)
	run := runstate.Start(&backends.Run{SlowAfter: time.Nanosecond, Slow: func(a backends.Awaited, _ time.Duration) {
		select {
		case slow <- a:
		default:
		}
	}})
	d := New(Options{URIMap: map[string]string{"qemu:///system": uri}, Run: run})
	done := make(chan error, 1)
	go func() {
		_, err := d.observe("qemu:///system")
		done <- err
	}()
	t.Cleanup(func() {
		unhang()
		<-done
		_ = d.Close()
	})
	want := backends.Awaited{Server: "libvirt host qemu:///system (as " + uri + ")", Request: "NewConnect"}
	select {
	case a := <-slow:
		if a.Server != want.Server || a.Request != want.Request {
			t.Errorf("Slow heard of %s to answer %s, want %s to answer %s", a.Server, a.Request, want.Server, want.Request)
		}
	case err := <-done:
		t.Fatalf("observe ended (%v) before the run heard of the call it waits on", err)
	}
	if got := run.Awaiting(); len(got) != 1 || got[0].Request != "NewConnect" {
		t.Errorf("Awaiting() = %+v, want the NewConnect alone", got)
	}
}

//go:build cgo && libvirt_dlopen

package storage

import (
	"fmt"
	"sync/atomic"
	"time"
)

// sayProgress says every UploadProgressEvery how much of an upload of
// size bytes into what was sent, until stop is called.
func (a *Writer) sayProgress(what string, size int64, sent *atomic.Int64) (stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(over)
		t := time.NewTicker(UploadProgressEvery)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			n := sent.Load()
			line := fmt.Sprintf("uploading %s to %s: %s of %s sent (%d%%, %s)", what, a.Set.Server(a.Host),
				byteString(n), byteString(size), percent(n, size), time.Since(start).Round(time.Second))
			if n == last {
				line += "; nothing more was taken since the last report"
			}
			last = n
			a.Run.Say(line)
		}
	}()
	return func() { close(quit); <-over }
}

func percent(n, of int64) int64 {
	if of <= 0 {
		return 100
	}
	return n * 100 / of
}

// byteString is a byte count for a person: "1.5 GiB", "12 KiB", "10 bytes".
func byteString(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

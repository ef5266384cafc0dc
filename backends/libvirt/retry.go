//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
)

// Retry policy: a few tries, the wait doubling from retryBackoff.
const (
	retryTries   = 3
	retryBackoff = 250 * time.Millisecond
)

// retry runs op until it succeeds, fails with an error that is not
// ClassTransient, or has been tried retryTries times (backends.Retry).
// Use it ONLY for calls that are safe to repeat: observation, and
// "ensure" calls whose repeat leaves the same result (DefineXML of the
// same XML, SetAutostart to a value, SetMetadata). A failed start, stop,
// create or upload may have happened; repeating it blindly is not safe.
//
// op must fetch its connection with d.conn on every try: conn reopens a
// connection that died, which is what a transient error usually means.
// Every libvirt call op makes is counted by op itself, so Calls stays
// the true number of calls made, retries included.
//
// The run (Options.Run) goes with the tries: once it is interrupted, a
// failed call is not tried again and a wait for the next try ends at
// the interrupt (issue 27: nothing is sent after Ctrl-C that was not on
// its way already).
func (d *Driver) retry(op func() error) error {
	sleep := backends.Sleep
	if d.sleep != nil {
		sleep = func(ctx context.Context, w time.Duration) error { d.sleep(w); return ctx.Err() }
	}
	r := backends.Retry{Tries: retryTries, Backoff: retryBackoff, Classify: conn.Classify, Sleep: sleep}
	return r.Do(backends.WithRun(context.Background(), d.opts.Run), func(context.Context) error { return op() })
}

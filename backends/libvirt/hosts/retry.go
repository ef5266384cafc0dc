//go:build cgo && libvirt_dlopen

package hosts

import (
	"context"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
)

// Retry policy: a few tries, the wait doubling from RetryBackoff (tests
// count the tries).
const (
	RetryTries   = 3
	RetryBackoff = 250 * time.Millisecond
)

// Retry runs op until it succeeds, fails with an error that is not
// ClassTransient, or has been tried RetryTries times (backends.Retry).
// Use it ONLY for calls that are safe to repeat: observation, and
// "ensure" calls whose repeat leaves the same result (DefineXML of the
// same XML, SetAutostart to a value, SetMetadata). A failed start, stop,
// create or upload may have happened; repeating it blindly is not safe.
//
// op must fetch its connection with s.Conn on every try: Conn reopens a
// connection that died, which is what a transient error usually means.
// Every libvirt call op makes is counted by op itself, so Calls stays
// the true number of calls made, retries included.
//
// The run (Options.Run) goes with the tries: once it is interrupted, a
// failed call is not tried again and a wait for the next try ends at
// the interrupt (issue 27: nothing is sent after Ctrl-C that was not on
// its way already).
func (s *Set) Retry(op func() error) error {
	sleep := backends.Sleep
	if s.Sleep != nil {
		sleep = func(ctx context.Context, w time.Duration) error { s.Sleep(w); return ctx.Err() }
	}
	r := backends.Retry{Tries: RetryTries, Backoff: RetryBackoff, Classify: conn.Classify, Sleep: sleep}
	return r.Do(backends.WithRun(context.Background(), s.Opts.Run), func(context.Context) error { return op() })
}

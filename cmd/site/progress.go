package main

import (
	"io"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
)

// slowRequestAfter is how long a request goes unanswered before site
// names it on stderr (backends.Run.Slow); tests shorten it.
var slowRequestAfter = backends.DefaultSlowAfter

// progress is engine.TextProgress with site's slow-request wait, under
// the names site leftovers calls it by.
type progress struct{ *engine.TextProgress }

func newProgress(w io.Writer, live, color bool) *progress {
	return &progress{engine.NewTextProgress(w, live, color)}
}

// watchSlow names each request a server leaves unanswered (see
// engine.TextProgress.WatchSlow).
func (p *progress) watchSlow(run *backends.Run) { p.WatchSlow(run, slowRequestAfter) }

package main

import (
	"io"

	"github.com/site-tools/site/backends/engine"
)

// The report and the progress words live beside engine.Report; these
// are the names cmd/site's files call them by.
const (
	statusObserved = engine.StatusObserved
	statusBlocked  = engine.StatusBlocked
	statusStopped  = engine.StatusStopped
)

var (
	colorFor        = engine.ColorFor
	describeChanges = engine.DescribeChanges
	describeWaiting = engine.DescribeWaiting
)

func reportCounts(rep *engine.Report) string { return rep.Counts() }

func writeReport(w io.Writer, rep *engine.Report, color bool) error { return rep.WriteText(w, color) }

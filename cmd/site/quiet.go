package main

import "github.com/site-tools/site/backends/engine"

// --quiet (diff and apply) keeps what a person must act on: the changes
// and the problems. It drops the progress lines ("[3/8] dns/... observed",
// "observe: observed 8 of 8 steps, ..."), the plan's notes and
// prerequisites, the notes of apply's report, and the "No changes." of a
// converged plan, which then prints nothing at all: the exit code says
// it. Lines about trouble while running (a server slow to answer, a
// lock waited for, an interrupt) and every error stay, on stderr.

const quietFlagHelp = "print only changes and problems"

// reportShown is rep as apply prints it: with --quiet (quiet), without
// the notes of its steps; rep itself is left as it is.
func reportShown(rep *engine.Report, quiet bool) *engine.Report {
	if !quiet {
		return rep
	}
	q := *rep
	q.Steps = make([]engine.StepReport, len(rep.Steps))
	for i, s := range rep.Steps {
		s.Notes = nil
		q.Steps[i] = s
	}
	return &q
}

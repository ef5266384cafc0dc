package main

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// applyJournal records, once an apply has changed something, what it
// changed in each tenant's journal (site help undo), beside the
// tenant's lock: site history lists it, site undo plans its inverse.
type applyJournal struct {
	run  journal.Run
	dirs []string // the specs' directories, which the journal stays out of
	g    *graph.Graph
	// undo is the undo this apply carries out, nil for an apply.
	undo       *journal.Undo
	bk         *runBackends
	backendRun *backends.Run
}

// journalStore is tenant t's journal, where its lock lives (journal.For),
// kept by this run's backends.
func journalStore(ctx context.Context, t *model.Tenant, bk *runBackends, run *backends.Run, dirs []string) (journal.Store, error) {
	return journal.For(ctx, t, journal.KeepersOf(bk.Kinds[plan.PhaseSecrets], bk.Providers, run), dirs)
}

// newApplyJournal is the journal of an apply of args over g, run as
// command with bk and run.
func newApplyJournal(args []string, g *graph.Graph, command string, undo *journal.Undo, bk *runBackends, run *backends.Run) *applyJournal {
	dir := ""
	if config, _, err := specInput(args); err == nil {
		dir = filepath.Dir(config)
	}
	r := journal.NewRun(command, dir, time.Now())
	if undo != nil {
		r.Undoes = undo.Entry.ID
	}
	return &applyJournal{run: r, dirs: specDirs(args, g), g: g, undo: undo, bk: bk, backendRun: run}
}

// record writes an entry for each tenant whose steps of obs rep says
// were applied. A journal that cannot be written fails nothing (the apply
// is done): it is said on w, with what it costs.
func (j *applyJournal) record(ctx context.Context, w io.Writer, obs *engine.Observation, rep *engine.Report) {
	if j == nil || rep == nil {
		return
	}
	journal.Record(ctx, w, j.run, j.g, obs, rep, scopeTenants(j.g), func(ctx context.Context, t *model.Tenant) (journal.Store, error) {
		return journalStore(ctx, t, j.bk, j.backendRun, j.dirs)
	})
}

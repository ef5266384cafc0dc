package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
)

// This file is what site history, site undo and site apply do with a
// journal beyond keeping it: list it, pick the entry to undo, record an
// apply. The commands keep their flags, the loading and the exit codes.

// WriteHistory writes es as a table, newest first.
func WriteHistory(w io.Writer, es []Entry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "no applies journalled")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN\tWHO\tCOMMIT\tCHANGES")
	for _, e := range es {
		commit := e.Commit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit == "" {
			commit = "-"
		}
		changes := countsText(e.Counts())
		if e.Undoes != "" {
			changes += " (undoes " + e.Undoes + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.Time.UTC().Format(time.RFC3339), e.ShortWho(), commit, changes)
	}
	tw.Flush()
}

// HistoryItem is one entry as site history --format json lists it:
// what the table says, uncut, with the changes counted per action.
type HistoryItem struct {
	Tenant  string         `json:"tenant"`
	ID      string         `json:"id"`
	Time    time.Time      `json:"time"`
	Who     string         `json:"who"`
	Command string         `json:"command"`
	Commit  string         `json:"commit"`
	Undoes  string         `json:"undoes"`
	Changes map[string]int `json:"changes"`
}

// Item is e as site history --format json lists it.
func (e *Entry) Item() HistoryItem {
	n := map[string]int{}
	for a, k := range e.Counts() {
		if k > 0 {
			n[string(a)] = k
		}
	}
	return HistoryItem{Tenant: e.Tenant, ID: e.ID, Time: e.Time.UTC(), Who: e.Who, Command: e.Command,
		Commit: e.Commit, Undoes: e.Undoes, Changes: n}
}

// WriteHistoryJSON writes items as one indented JSON array ([] when
// none), so a script reads every tenant's history at once.
func WriteHistoryJSON(w io.Writer, items []HistoryItem) error {
	if items == nil {
		items = []HistoryItem{}
	}
	b, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		return fmt.Errorf("history as JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// countsText is "2 create, 1 update, 1 delete".
func countsText(n map[plan.Action]int) string {
	var parts []string
	for _, a := range []plan.Action{plan.ActionCreate, plan.ActionUpdate, plan.ActionDelete, plan.ActionAdopt} {
		if n[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[a], a))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// ShortWho is who ran e, as a journal file says it: escaped, never
// starting a line of its own.
func (e *Entry) ShortWho() string { return visible.Short(e.Who) }

// Pick is the entry of tenant's journal in s that site undo undoes:
// id, else the newest. notes are the entries that could not be read
// while looking for the newest.
func Pick(ctx context.Context, s Store, tenant, id string) (e *Entry, notes []string, err error) {
	if id != "" {
		e, err = s.Get(ctx, id)
		return e, nil, err
	}
	es, notes, err := s.List(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(es) == 0 {
		return nil, notes, fmt.Errorf("tenant %s's journal (%s) holds no apply to undo", tenant, s.Where())
	}
	return &es[0], notes, nil
}

// StartUndo picks the entry of tenant's journal s that site undo
// undoes (id, else the newest: Pick) and plans its undo (NewUndo),
// saying on w the notes the journal gave, what the undo leaves, and
// which entry it undoes.
func StartUndo(ctx context.Context, w io.Writer, s Store, tenant, id string, dnsOnly bool) (*Undo, error) {
	e, notes, err := Pick(ctx, s, tenant, id)
	for _, n := range notes {
		fmt.Fprintln(w, "site: note:", n)
	}
	if err != nil {
		return nil, err
	}
	u, err := NewUndo(e, dnsOnly)
	if err != nil {
		return nil, err
	}
	for _, s := range u.Skipped {
		fmt.Fprintln(w, "site: note:", s)
	}
	fmt.Fprintf(w, "site: undoing journal entry %s of tenant %s (%s, %s)\n", e.ID, e.Tenant, e.Time.UTC().Format(time.RFC3339), e.ShortWho())
	return u, nil
}

// vaultJournaller is the secrets backend when it can keep a tenant's
// journal in a KV v2 secret of one of the operator's stores.
type vaultJournaller interface {
	JournalStore(ctx context.Context, store *model.Vault, tenant string, run *backends.Run) (Store, error)
}

// zoneJournaller is the PowerDNS backend, which keeps a tenant's
// journal in the metadata of the operator's journal zone.
type zoneJournaller interface {
	JournalStore(provider model.Provider, zone, tenant string, run *backends.Run) (Store, error)
}

// KeepersOf are the Keepers secrets (the run's secrets backend, nil
// when none) and providers (the run's DNS backends by provider kind)
// offer, for run.
func KeepersOf(secrets any, providers map[string]backends.Driver, run *backends.Run) Keepers {
	var k Keepers
	k.PowerDNS = func(z *model.LockZone, tenant string) (Store, error) {
		zj, ok := providers[z.Provider.Kind()].(zoneJournaller)
		if !ok {
			return nil, fmt.Errorf("provider %s keeps no journal: %w", z.Provider.Name, ErrAbsent)
		}
		return zj.JournalStore(z.Provider, z.Journal, tenant, run)
	}
	if vj, ok := secrets.(vaultJournaller); ok {
		k.Vault = func(ctx context.Context, store *model.Vault, tenant string) (Store, error) {
			return vj.JournalStore(ctx, store, tenant, run)
		}
	}
	return k
}

// Record writes an entry of r for each of tenants whose steps of obs
// rep says were applied, in the journal storeOf opens (a tenant that is not one
// of tenants is passed over). A journal that cannot be written fails
// nothing (the apply is done): it is said on w, with what it costs.
func Record(ctx context.Context, w io.Writer, r Run, g *graph.Graph, obs *engine.Observation, rep *engine.Report,
	tenants []*model.Tenant, storeOf func(ctx context.Context, t *model.Tenant) (Store, error)) {
	byName := map[string]*model.Tenant{}
	for _, t := range tenants {
		byName[t.Name] = t
	}
	for _, e := range Entries(r, g, obs.Plan, obs.Steps, rep) {
		t := byName[e.Tenant]
		if t == nil {
			continue
		}
		s, err := storeOf(ctx, t)
		if err == nil {
			err = s.Append(ctx, e)
		}
		switch {
		case errors.Is(err, ErrAbsent):
			fmt.Fprintf(w, "site: note: %v\n", err)
		case err != nil:
			fmt.Fprintf(w, "site: tenant %s's journal was not written, so site undo cannot undo this apply: %v\n", e.Tenant, err)
		}
	}
}

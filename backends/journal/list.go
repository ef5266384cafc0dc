package journal

import (
	"context"
	"fmt"
	"io"

	"github.com/site-tools/site/compiler/model"
)

// Histories is site history's listing of tenants' journals (storeOf
// opens each): a table per tenant on out, or with asJSON one array of
// every tenant's entries. What could not be read is said on errw, and
// the others are still listed; ok is false when a journal could not be
// read. err is out's, when JSON could not be written.
func Histories(ctx context.Context, out, errw io.Writer, tenants []*model.Tenant, storeOf func(*model.Tenant) (Store, error), asJSON bool) (ok bool, err error) {
	items := []HistoryItem{}
	ok = true
	for i, t := range tenants {
		if i > 0 && !asJSON {
			fmt.Fprintln(out)
		}
		s, err := storeOf(t)
		if err != nil {
			if !asJSON {
				fmt.Fprintf(out, "# tenant %s: no journal\n", t.Name)
			}
			fmt.Fprintln(errw, "site:", err)
			ok = false
			continue
		}
		es, skipped, err := s.List(ctx)
		if err != nil {
			fmt.Fprintln(errw, "site:", err)
			ok = false
			continue
		}
		if asJSON {
			for i := range es {
				items = append(items, es[i].Item())
			}
		} else {
			fmt.Fprintf(out, "# tenant %s (journal in %s)\n", t.Name, s.Where())
			WriteHistory(out, es)
		}
		for _, sk := range skipped {
			fmt.Fprintln(errw, "site: note:", sk)
		}
	}
	if asJSON {
		return ok, WriteHistoryJSON(out, items)
	}
	return ok, nil
}

package journal

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/plan"
)

// TestWriteHistory: site history's table, newest first, with the
// commit cut to 12, "-" for none, an undo naming what it undoes, and a
// who that would start a line of its own escaped.
func TestWriteHistory(t *testing.T) {
	a, b, c := entry(0), entry(1), entry(2)
	// IDs end in random hex: fixed ones keep the golden file stable.
	a.ID, b.ID, c.ID = "20261207T180000.000Z-0000000A", "20261207T180100.000Z-0000000B", "20261207T180200.000Z-0000000C"
	a.Commit = "0123456789abcdef0123"
	b.Who = "evil\nID  WHEN"
	b.Changes = append(b.Changes, Change{Action: plan.ActionDelete}, Change{Action: plan.ActionUpdate})
	c.Undoes, c.Changes = b.ID, nil
	var out bytes.Buffer
	WriteHistory(&out, []Entry{c, b, a})
	golden.Check(t, filepath.Join("testdata", "history.golden"), out.Bytes())
	out.Reset()
	WriteHistory(&out, nil)
	if out.String() != "no applies journalled\n" {
		t.Errorf("empty journal: %q", out.String())
	}
}

// TestWriteHistoryJSON: site history --format json is one array of
// entries, each with its id, time, who (unescaped, uncut: JSON quotes
// it), command, commit (uncut), what it undoes, and its changes counted
// per action; no entries is an empty array, not null.
func TestWriteHistoryJSON(t *testing.T) {
	a, b := entry(0), entry(1)
	a.ID, b.ID = "20261207T180000.000Z-0000000A", "20261207T180100.000Z-0000000B"
	a.Commit, a.Command = "0123456789abcdef0123", "site apply tenants/office1.cue"
	b.Who = "evil\nID  WHEN"
	b.Undoes = a.ID
	b.Changes = append(b.Changes, Change{Action: plan.ActionDelete}, Change{Action: plan.ActionDelete}, Change{Action: plan.ActionUpdate})
	var out bytes.Buffer
	if err := WriteHistoryJSON(&out, []HistoryItem{b.Item(), a.Item()}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "history.json.golden"), out.Bytes())
	out.Reset()
	if err := WriteHistoryJSON(&out, nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != "[]\n" {
		t.Errorf("no entries: %q", out.String())
	}
}

// TestPick: site undo undoes the entry named, else the newest; an empty
// journal says so and where it is.
func TestPick(t *testing.T) {
	ctx := context.Background()
	d := newDir(t)
	if _, _, err := Pick(ctx, d, "office1", ""); err == nil || !strings.Contains(err.Error(), "tenant office1's journal (directory ") || !strings.Contains(err.Error(), "holds no apply to undo") {
		t.Fatalf("empty journal: err %v", err)
	}
	var es []Entry
	for i := range 3 {
		es = append(es, entry(i))
		if err := d.Append(ctx, es[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ id, want string }{{"", es[2].ID}, {es[0].ID, es[0].ID}} {
		e, notes, err := Pick(ctx, d, "office1", tc.id)
		if err != nil || e.ID != tc.want || len(notes) > 0 {
			t.Errorf("Pick(id %q) = %v, notes %q, err %v; want %s", tc.id, e, notes, err, tc.want)
		}
	}
}

package journal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/plan"
)

var t0 = time.Date(2026, 12, 7, 18, 0, 0, 0, time.UTC)

func entry(i int) Entry {
	at := t0.Add(time.Duration(i) * time.Minute)
	return Entry{Format: Format, ID: NewID(at), Tenant: "office1", Time: at, Who: "t@h",
		Changes: []Change{{Key: "dns/z./a.z./A", Step: "dns/z.", Phase: plan.PhaseDNS, Action: plan.ActionCreate,
			Zone: "z.", Name: "a.z.", Type: "A", After: &RRset{TTL: 300, Values: []string{"192.0.2.1"}}}}}
}

func newDir(t *testing.T) Dir {
	t.Helper()
	d, err := NewDir(filepath.Join(t.TempDir(), "office1.journal"), "office1")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestJournalKeepsTheLastN: a tenant's journal holds its last Keep
// applies; writing one more removes the oldest.
func TestJournalKeepsTheLastN(t *testing.T) {
	d := newDir(t)
	var all []Entry
	for i := range Keep + 5 {
		e := entry(i)
		all = append(all, e)
		if err := d.Append(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := os.ReadDir(d.Path)
	if len(files) != Keep {
		t.Errorf("%d files in the journal, want %d", len(files), Keep)
	}
	got, skipped, err := d.List(context.Background())
	if err != nil || len(skipped) > 0 {
		t.Fatalf("List: %v, skipped %q", err, skipped)
	}
	if len(got) != Keep {
		t.Fatalf("List: %d entries, want %d", len(got), Keep)
	}
	for i, e := range got {
		if want := all[len(all)-1-i].ID; e.ID != want {
			t.Errorf("entry %d is %s, want %s (newest first)", i, e.ID, want)
		}
	}
	if _, err := d.Get(context.Background(), all[0].ID); err == nil || !strings.Contains(err.Error(), "has no entry") {
		t.Errorf("Get of the oldest: %v, want it gone", err)
	}
}

// TestJournalFilesAreReadBounded: whatever is in a journal directory is
// read as hostile, as lock files are: a symbolic link (to /dev/zero, to
// a runner's secret), a FIFO, a huge file, bytes that are no entry, an
// entry whose id or tenant is not its file's: each is left alone with a
// reason that quotes none of its bytes, and the real entries still list.
func TestJournalFilesAreReadBounded(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("Hunter2 is the password"), 0o600); err != nil {
		t.Fatal(err)
	}
	forged := func(mod func(*Entry)) func(string) error {
		return func(p string) error {
			e := entry(50)
			e.ID = strings.TrimSuffix(filepath.Base(p), ".json")
			mod(&e)
			b, _ := json.Marshal(e)
			return os.WriteFile(p, b, 0o600)
		}
	}
	tests := []struct {
		name  string
		plant func(path string) error
		want  string
	}{
		{"symbolic link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "a symbolic link"},
		{"symbolic link to a runner's file", func(p string) error { return os.Symlink(secret, p) }, "a symbolic link"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a regular file"},
		{"huge file", func(p string) error { return os.WriteFile(p, make([]byte, maxEntry+1), 0o600) }, "larger than"},
		{"a runner's file's bytes", func(p string) error { return os.WriteFile(p, []byte("Hunter2 is the password"), 0o600) }, "not the JSON of an entry"},
		{"forged id", forged(func(e *Entry) { e.ID = "../../etc/passwd" }), "its id is not one site makes"},
		{"another entry's id", forged(func(e *Entry) { e.ID = NewID(t0) }), "its id is not its file's name"},
		{"another tenant's", forged(func(e *Entry) { e.Tenant = "mallory" }), "it names another tenant"},
		{"another format", forged(func(e *Entry) { e.Format = 99 }), "format 99"},
		{"a name outside the zone", forged(func(e *Entry) {
			e.Changes[0].Name, e.Changes[0].Key = "victim.other.", "dns/z./victim.other./A"
		}), "change 1 names a record set outside its zone"},
		{"a key that is not its record set", forged(func(e *Entry) { e.Changes[0].Key = "dns/z./b.z./A" }), "change 1 has a key that is not its zone, name and type"},
		{"a key of two lines", forged(func(e *Entry) { e.Changes[0].Key = "vm/x\n::error::" }), "change 1 has a key that is no line of text"},
		{"a value of two lines", forged(func(e *Entry) { e.Changes[0].After.Values = []string{"a\n::error::"} }), "change 1 has a value that is no line of text"},
		{"a commit that is no hash", forged(func(e *Entry) { e.Commit = "x\n::error::" }), "its commit is not a hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDir(t)
			real := entry(1)
			if err := d.Append(context.Background(), real); err != nil {
				t.Fatal(err)
			}
			id := entry(50).ID
			if err := tt.plant(filepath.Join(d.Path, id+".json")); err != nil {
				t.Fatal(err)
			}
			got, skipped, err := d.List(context.Background())
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if len(got) != 1 || got[0].ID != real.ID {
				t.Errorf("List: %d entries, want the real one only", len(got))
			}
			if len(skipped) != 1 || !strings.Contains(skipped[0], tt.want) {
				t.Errorf("List skipped %q, want one line saying %q", skipped, tt.want)
			}
			_, err = d.Get(context.Background(), id)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Get: %v, want %q", err, tt.want)
			}
			for _, s := range append(skipped, errText(err)) {
				if strings.Contains(s, "Hunter2") || strings.Contains(s, "::error::") {
					t.Errorf("a message quotes the file: %q", s)
				}
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestJournalNamesAreOpaque: only names site makes are read or removed;
// an id from the command line or a file never builds a path.
func TestJournalNamesAreOpaque(t *testing.T) {
	d := newDir(t)
	outside := filepath.Join(filepath.Dir(d.Path), "victim.json")
	if err := os.WriteFile(outside, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../victim", "20261207T180000.000Z-0000000", "20261207T180000.000Z-0000000a", ""} {
		if _, err := d.Get(context.Background(), id); err == nil || !strings.Contains(err.Error(), "is not a journal entry id") {
			t.Errorf("Get(%q): %v, want it refused as no id", id, err)
		}
	}
	// A link named like an entry is pruned as a name: what it points
	// at stays.
	if err := os.Symlink(outside, filepath.Join(d.Path, NewID(t0.Add(-time.Hour))+".json")); err != nil {
		t.Fatal(err)
	}
	for i := range Keep {
		if err := d.Append(context.Background(), entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("pruning removed what a link pointed at: %v", err)
	}
	// A directory of many files is not site's: not listed into memory.
	for i := range maxNames {
		if err := os.WriteFile(filepath.Join(d.Path, "junk"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := d.List(context.Background()); err == nil || !strings.Contains(err.Error(), "it is not site's alone") {
		t.Errorf("List of a crowded directory: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestJournalDirIsNoLink: the journal directory must be site's own, not
// a symbolic link to somewhere else.
func TestJournalDirIsNoLink(t *testing.T) {
	root := t.TempDir()
	elsewhere := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "office1.journal")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if _, err := NewDir(link, "office1"); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("NewDir over a link: %v, want refused", err)
	}
}

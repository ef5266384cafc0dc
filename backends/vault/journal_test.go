package vault

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/backends/journal"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func journalFor(t *testing.T, addr string) *JournalStore {
	t.Helper()
	store := &model.Vault{Name: "bao", Addrs: []string{addr}, Mount: "secret", Token: model.Credential{Env: "VAULT_TOKEN"}}
	s, err := New().JournalStore(context.Background(), store, "office1", newRun(map[string]string{"VAULT_TOKEN": testToken}))
	if err != nil {
		t.Fatalf("JournalStore: %v", err)
	}
	return s.(*JournalStore)
}

func journalEntry(i int) journal.Entry {
	at := time.Date(2026, 12, 7, 18, 0, i, 0, time.UTC)
	return journal.Entry{Format: journal.Format, ID: journal.NewID(at), Tenant: "office1", Time: at, Who: "t@h",
		Changes: []journal.Change{{Key: "dns/z./a.z./A", Step: "dns/z.", Phase: plan.PhaseDNS, Action: plan.ActionDelete,
			Zone: "z.", Name: "a.z.", Type: "A", Before: &journal.RRset{TTL: 300, Values: []string{"192.0.2.1"}}}}}
}

// TestJournalVaultKeepsTheLastN: a tenant whose lock lives in a Vault
// keeps its journal there, one version per apply; Vault drops the
// oldest beyond journal.Keep, and a version someone else wrote (no
// entry, a forged one, another tenant's) is left alone, not quoted.
func TestJournalVaultKeepsTheLastN(t *testing.T) {
	srv := newVault(t)
	s := journalFor(t, srv.URL)
	ctx := context.Background()
	var all []journal.Entry
	for i := range journal.Keep + 3 {
		e := journalEntry(i)
		all = append(all, e)
		if err := s.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, skipped, err := s.List(ctx)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("List: %v, skipped %q", err, skipped)
	}
	if len(got) != journal.Keep || got[0].ID != all[len(all)-1].ID || got[len(got)-1].ID != all[3].ID {
		t.Fatalf("List: %d entries, newest %s; want %d, newest %s", len(got), got[0].ID, journal.Keep, all[len(all)-1].ID)
	}
	if _, err := s.Get(ctx, all[0].ID); err == nil || !strings.Contains(err.Error(), "has no entry") {
		t.Errorf("Get of the oldest: %v, want it gone", err)
	}
	if e, err := s.Get(ctx, all[5].ID); err != nil || e.Changes[0].Before.Values[0] != "192.0.2.1" {
		t.Errorf("Get: %v, %v", e, err)
	}
	kv := s.kv()
	for _, data := range []map[string]any{
		{"id": "Hunter2"},
		{"entry": "Hunter2 is the password"},
		{"entry": strings.Replace(mustJSON(t, journalEntry(99)), "office1", "mallory", 1)},
		{"entry": "{" + strings.Repeat("x", 1<<19)},
	} {
		if _, err := kv.Put(ctx, s.path(), data); err != nil {
			t.Fatal(err)
		}
	}
	got, skipped, err = s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != journal.Keep-4 || len(skipped) != 4 {
		t.Errorf("List after 4 forged versions: %d entries, %d skipped; want %d and 4", len(got), len(skipped), journal.Keep-4)
	}
	for _, sk := range skipped {
		if strings.Contains(sk, "Hunter2") || strings.Contains(sk, "mallory") || strings.Contains(sk, "xxxx") {
			t.Errorf("a skipped line quotes the secret: %q", sk)
		}
	}
	if _, err := s.Get(ctx, "../site-locks/office1"); err == nil || !strings.Contains(err.Error(), "is not a journal entry id") {
		t.Errorf("Get of a path: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

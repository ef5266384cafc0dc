package leftovers

import (
	"context"
	"errors"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

// listerOf answers ListOwned from a map of URI to what is there, or an
// error for a URI it does not hold.
type listerOf map[string][]backends.Owned

func (l listerOf) ListOwned(_ context.Context, host string) ([]backends.Owned, error) {
	if owned, ok := l[host]; ok {
		return owned, nil
	}
	return nil, errors.New("connection refused")
}

func (l listerOf) ListLeftUploads(_ context.Context, host string) ([]backends.PoolUploads, error) {
	if _, ok := l[host]; ok {
		return nil, nil
	}
	return nil, errors.New("connection refused")
}

func (listerOf) Opens(host string) string { return host }

// TestAHostNotReadHidesNoTenantsVM: a tenant declares its VM through
// host a, which could not be read, and the domain is listed through
// host b, which may be the same daemon under another URI. Whether it is
// the tenant's live VM cannot be known without a's listing: it is not
// judged, and no command that would remove it is printed.
func TestAHostNotReadHidesNoTenantsVM(t *testing.T) {
	web := backends.Owned{Kind: backends.OwnedDomain, Name: "web", UUID: "11111111-1111-1111-1111-111111111111", Tenant: "keep", Active: true}
	keep := &model.Tenant{Name: "keep", VMs: []*model.VM{{Name: "web", Host: "qemu:///system"}}}
	f := &Finder{Hosts: listerOf{"qemu+unix:///system": {web}}, Run: runstate.Start(backends.NewRun())}
	r := f.Find(context.Background(), Input{Tenants: []*model.Tenant{keep}, Hosts: map[string]string{"a": "qemu:///system", "b": "qemu+unix:///system"}})
	if len(r.Hosts) != 2 || r.Hosts[0].Error == "" || len(r.Hosts[1].Leftovers) != 1 {
		t.Fatalf("want host a unread and web listed on b, got %+v", r.Hosts)
	}
	if l := r.Hosts[1].Leftovers[0]; l.NotJudged == "" || len(l.Remove) != 0 {
		t.Errorf("web on b: not judged %q, remove %q; want a reason and no command", l.NotJudged, l.Remove)
	}
}

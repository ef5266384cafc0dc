package leftovers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/golden"
	"github.com/site-tools/site/compiler/model"
)

// TestWriteTextUploads: a pool whose volumes could not be listed is
// said unread, and counted among what could not be read; uploads left
// in a pool are counted in the summary; an upload whose markers a hash
// names and whose volume is not there is shown so.
func TestWriteTextUploads(t *testing.T) {
	r := &Report{Hosts: []HostReport{{Name: "kvm1", URI: "qemu:///system", Listed: 1, Pools: []PoolReport{
		{Pool: "images", Uploads: []UploadReport{
			{Markers: []string{".uploading-0123456789abcdef0123456789abcdef"}, Run: "another site run (pid 7 on kvm1)", RunGone: true,
				Remove: []string{"virsh -c qemu:///system vol-delete --pool images .uploading-0123456789abcdef0123456789abcdef"}},
		}},
		{Pool: "stopped", Error: `storage pool "stopped" on qemu:///system is not active: start it (virsh pool-start stopped)`},
	}}}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "uploads.golden"), b.Bytes())
	if !r.Unread() || !r.Found() {
		t.Errorf("Unread %t Found %t, want both", r.Unread(), r.Found())
	}
}

// hostsFake lists what it is given: no domain, and uploads.
type hostsFake struct{ pools []backends.PoolUploads }

func (h hostsFake) ListOwned(context.Context, string) ([]backends.Owned, error) { return nil, nil }
func (h hostsFake) ListLeftUploads(context.Context, string) ([]backends.PoolUploads, error) {
	return h.pools, nil
}
func (h hostsFake) Opens(host string) string { return host }

// TestUploadsNoRunTakesUp: an upload is left over unless a run takes
// it up: a seed's whose tenant declares a VM on the host (its runs
// remove or upload it), and one whose marker names no tenant when
// site.cue declares it as an image on the host (on another name of the
// same URI too), or, for markers a hash names, declares an image whose
// name is that long in the pool; a whole seed unless a tenant declares
// the VM it was made for on the host.
func TestUploadsNoRunTakesUp(t *testing.T) {
	long := strings.Repeat("x", 237)
	up := func(tenant, volume string) backends.LeftUpload {
		return backends.LeftUpload{Pool: "p", Volume: volume, Tenant: tenant, Markers: []string{"." + volume + ".uploading"}}
	}
	f := &Finder{Hosts: hostsFake{pools: []backends.PoolUploads{{Pool: "p", Left: []backends.LeftUpload{
		up("keep", "seed-1"), up("lab", "seed-2"), up("gone", "seed-3"), up("", "img.raw"), up("", "old.raw"), up("", ""),
	}, Seeds: []backends.LeftSeed{{Pool: "p", Volume: "seed-4", VM: "k"}, {Pool: "p", Volume: "seed-5", VM: "gone-vm"}}}}}}
	in := Input{
		Tenants: []*model.Tenant{{Name: "keep", VMs: []*model.VM{{Name: "k", Host: "qemu:///system"}}}, {Name: "lab"}},
		Hosts:   map[string]string{"kvm1": "qemu:///system", "alias": "qemu:///system"},
		Images:  map[string]map[string]*model.Image{"alias": {"p/img.raw": {}, "p/" + long: {}}},
	}
	r := f.Find(context.Background(), in)
	var got []string
	for _, p := range r.Hosts[0].Pools {
		for _, u := range p.Uploads {
			got = append(got, fmt.Sprintf("%s %q loaded=%t", u.Volume, u.Tenant, u.Loaded))
		}
	}
	want := []string{`seed-2 "lab" loaded=true`, `seed-3 "gone" loaded=false`, `old.raw "" loaded=false`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reported %q, want %q", got, want)
	}
	if seeds := fmt.Sprintf("%+v", r.Hosts[0].Pools[0].Seeds); seeds != "[{Volume:seed-5 VM:gone-vm NotJudged: Remove:[virsh -c qemu:///system vol-delete --pool p seed-5]}]" {
		t.Errorf("whole seeds reported: %s, want seed-5's alone (VM k is declared there)", seeds)
	}
	delete(in.Images["alias"], "p/"+long)
	r = f.Find(context.Background(), in)
	if n := len(r.Hosts[0].Pools[0].Uploads); n != 4 {
		t.Errorf("without the long image: %d uploads reported, want 4 (the hashed markers' too)", n)
	}
}

// poolsOf lists, per URI, the pools given; a URI it does not hold could
// not be read.
type poolsOf map[string][]backends.PoolUploads

func (p poolsOf) ListOwned(_ context.Context, host string) ([]backends.Owned, error) {
	if _, ok := p[host]; ok {
		return nil, nil
	}
	return nil, errors.New("connection refused")
}
func (p poolsOf) ListLeftUploads(_ context.Context, host string) ([]backends.PoolUploads, error) {
	return p[host], nil
}
func (poolsOf) Opens(host string) string { return host }

// TestUploadsJudgedAsDomainsAre: the rules that keep a domain from
// being judged keep an upload too. A pool listed under two URIs of one
// daemon (one pool UUID) holds no upload a run through the other URI
// takes up; an upload a run on a host that could not be read may take
// up, or whose tenant site.cue grants but whose file was not loaded,
// is said not judged, with no command, and makes the run's report
// Unread.
func TestUploadsJudgedAsDomainsAre(t *testing.T) {
	up := func(tenant, volume string) backends.LeftUpload {
		return backends.LeftUpload{Pool: "p", Volume: volume, Tenant: tenant, Partial: true, Markers: []string{"." + volume + ".uploading"}}
	}
	pool := backends.PoolUploads{Pool: "p", UUID: "2b0ad2a0-0000-4000-8000-000000000001", Left: []backends.LeftUpload{
		up("keep", "seed-1"), up("team", "seed-2"), up("far", "seed-3"), up("gone", "seed-4")}}
	f := &Finder{Hosts: poolsOf{"qemu:///system": {pool}, "qemu+unix:///system": {pool}}}
	in := Input{
		Tenants: []*model.Tenant{
			{Name: "keep", VMs: []*model.VM{{Name: "k", Host: "qemu+unix:///system"}}},
			{Name: "far", VMs: []*model.VM{{Name: "f", Host: "qemu+ssh://far/system"}}},
		},
		Hosts:   map[string]string{"a": "qemu:///system", "b": "qemu+unix:///system", "far": "qemu+ssh://far/system"},
		Granted: func(tenant string) bool { return tenant == "team" },
	}
	r := f.Find(context.Background(), in)
	if len(r.Hosts) != 3 || r.Hosts[2].Error == "" {
		t.Fatalf("want hosts a, b, far (unread), got %+v", r.Hosts)
	}
	for _, h := range r.Hosts[:2] {
		var got []string
		for _, p := range h.Pools {
			for _, u := range p.Uploads {
				got = append(got, fmt.Sprintf("%s judged=%t remove=%d", u.Volume, u.NotJudged == "", len(u.Remove)))
			}
		}
		want := []string{"seed-2 judged=false remove=0", "seed-3 judged=false remove=0", "seed-4 judged=true remove=2"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("host %s: %q, want %q", h.Name, got, want)
		}
	}
	if !r.Unread() || !r.Found() {
		t.Errorf("Unread %t Found %t, want both", r.Unread(), r.Found())
	}

	// Whole seeds name their VM, not its tenant: one whose VM a tenant
	// declares through the other URI is taken up, one whose VM is
	// declared on the host not read is not judged, and while a tenant
	// granted is not loaded, none is judged.
	pool.Left = nil
	pool.Seeds = []backends.LeftSeed{{Pool: "p", Volume: "seed-5", VM: "k"}, {Pool: "p", Volume: "seed-6", VM: "f"}, {Pool: "p", Volume: "seed-7", VM: "old"}}
	f.Hosts = poolsOf{"qemu:///system": {pool}, "qemu+unix:///system": {pool}}
	seeds := func(r *Report) []string {
		var got []string
		for _, p := range r.Hosts[0].Pools {
			for _, s := range p.Seeds {
				got = append(got, fmt.Sprintf("%s judged=%t remove=%d", s.Volume, s.NotJudged == "", len(s.Remove)))
			}
		}
		return got
	}
	if got, want := seeds(f.Find(context.Background(), in)), []string{"seed-6 judged=false remove=0", "seed-7 judged=true remove=1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("whole seeds: %q, want %q", got, want)
	}
	in.Grantees = []string{"far", "keep", "team"}
	if got, want := seeds(f.Find(context.Background(), in)), []string{"seed-6 judged=false remove=0", "seed-7 judged=false remove=0"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("whole seeds while team is granted and not loaded: %q, want %q", got, want)
	}
}

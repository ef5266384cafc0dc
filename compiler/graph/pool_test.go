package graph

import (
	"reflect"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// pooled is two tenants whose VMs keep their disks in the operator's
// declared pool "images" on one host; one VM also uses a pool site.cue
// does not declare (it must exist already: no step converges it).
func pooled() *model.Spec {
	images := &model.Pool{HostName: "kvm1", Host: "qemu:///system", Name: "images", Type: "dir", Path: "/var/lib/site/images"}
	return &model.Spec{Tenants: []*model.Tenant{
		{Name: "a", VMs: []*model.VM{{Tenant: "a", Name: "web", Host: "qemu:///system",
			Disks: []model.Disk{{Pool: "images", Name: "web-root", Base: "debian-12.qcow2"}, {Pool: "legacy", Name: "web-data"}},
			Pools: []*model.Pool{images}}}},
		{Name: "b", VMs: []*model.VM{{Tenant: "b", Name: "db", Host: "qemu:///system",
			Disks: []model.Disk{{Pool: "images", Name: "db-root"}}, Pools: []*model.Pool{images}}}},
	}}
}

// TestPoolStepBeforeItsVMs: a declared pool is one step, shared by
// every VM whose volumes live in it, ordered before them.
func TestPoolStepBeforeItsVMs(t *testing.T) {
	g, err := Build(pooled())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pool/qemu:///system/images", "vm/qemu:///system/db", "vm/qemu:///system/web"}
	if got := ids(g); !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
	for _, vm := range []string{"vm/qemu:///system/db", "vm/qemu:///system/web"} {
		if got := g.Step(vm).Deps; !reflect.DeepEqual(got, []string{"pool/qemu:///system/images"}) {
			t.Errorf("%s deps: got %q, want the pool step", vm, got)
		}
	}
	if s := g.Step("pool/qemu:///system/images"); s.Tenant != "" || s.Pool == nil || s.Pool.Path != "/var/lib/site/images" {
		t.Errorf("pool step: got tenant %q pool %+v, want the operator's pool and no tenant", s.Tenant, s.Pool)
	}
}

// TestScopesKeepPools: --only vm and --target vm/... keep the pool the
// VM's volumes need, marked as a prerequisite the plan lists; --only
// storage keeps the pools alone.
func TestScopesKeepPools(t *testing.T) {
	g, err := Build(pooled())
	if err != nil {
		t.Fatal(err)
	}
	target := func(p string) *Graph {
		sub, err := g.Targets([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		return sub
	}
	tests := []struct {
		name   string
		sub    *Graph
		want   []string
		prereq []string
	}{
		{"only vm", g.Only(mustPhases(t, "vm")), []string{"pool/qemu:///system/images", "vm/qemu:///system/db", "vm/qemu:///system/web"},
			[]string{"pool/qemu:///system/images"}},
		{"target one vm", target("vm/*/web"), []string{"pool/qemu:///system/images", "vm/qemu:///system/web"},
			[]string{"pool/qemu:///system/images"}},
		{"only storage", g.Only(mustPhases(t, "storage")), []string{"pool/qemu:///system/images"}, nil},
		{"target the pool", target("pool/*"), []string{"pool/qemu:///system/images"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.sub); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if got := tt.sub.Prerequisites(); !reflect.DeepEqual(got, tt.prereq) {
				t.Errorf("prerequisites: got %q, want %q", got, tt.prereq)
			}
			checkClosed(t, tt.sub)
		})
	}
}

// TestImageStepBetweenPoolAndVM: a declared base image is uploaded by a
// step after its pool's and before the VMs whose disks start from it,
// and a scope on such a VM keeps both.
func TestImageStepBetweenPoolAndVM(t *testing.T) {
	spec := pooled()
	web := spec.Tenants[0].VMs[0]
	web.Images = []*model.Image{{Pool: web.Pools[0], Name: "debian-12.qcow2", Source: "/srv/debian-12.qcow2"}}
	g, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	const pool, img = "pool/qemu:///system/images", "image/qemu:///system/images/debian-12.qcow2"
	want := []string{pool, img, "vm/qemu:///system/db", "vm/qemu:///system/web"}
	if got := ids(g); !reflect.DeepEqual(got, want) {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
	if got := g.Step(img).Deps; !reflect.DeepEqual(got, []string{pool}) {
		t.Errorf("image deps: got %q, want its pool", got)
	}
	sub, err := g.Targets([]string{"vm/*/web"})
	if err != nil {
		t.Fatal(err)
	}
	if got := sub.Prerequisites(); !reflect.DeepEqual(got, []string{pool, img}) {
		t.Errorf("prerequisites of --target vm/*/web: got %q, want the pool and the image", got)
	}
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/model"
)

// TestListOwnedListsEveryTenantsOwnerElements: site leftovers lists what
// carries site's owner element on a host, whatever tenant it names, with
// the volumes a domain's element lists; what carries none is not site's
// and is not listed.
func TestListOwnedListsEveryTenantsOwnerElements(t *testing.T) {
	const ns = `xmlns:site="` + OwnerNS + `"`
	domain := func(name, uuid, metadata string) string {
		return `<domain type="test"><name>` + name + `</name><uuid>` + uuid + `</uuid><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type>hvm</type></os>` + metadata + `</domain>`
	}
	fx := libvirttest.Fixture{
		Domains: []string{
			domain("old", "9978b02c-d345-41b2-a8a4-5006e14584fe", `<metadata><site:owner `+ns+` tenant="gone"><site:volume pool="default" name="old-root" role="disk"/></site:owner></metadata>`),
			domain("web", "fda0b804-b0c9-42df-87fe-ae1b5a5b85c3", `<metadata><site:owner `+ns+` tenant="t1"/></metadata>`),
			domain("byhand", "5a0e7d3c-1b2f-4c8d-9e6a-7f1b2c3d4e5f", ""),
		},
		Networks: []string{
			`<network><name>old-lan</name><uuid>3146ec79-c852-49bc-9ac8-f59c2fe9d499</uuid><metadata><site:owner ` + ns + ` tenant="gone"/></metadata><ip address="10.9.0.1" netmask="255.255.255.0"/></network>`,
		},
	}
	r := newRig(t, libvirttest.TestURI(t, fx), Options{})
	owned, err := r.d.ListOwned(context.Background(), r.host)
	if err != nil {
		t.Fatal(err)
	}
	want := []backends.Owned{
		{Kind: backends.OwnedDomain, Name: "old", UUID: "9978b02c-d345-41b2-a8a4-5006e14584fe", Tenant: "gone", Active: true, Volumes: []backends.Volume{{Pool: "default", Name: "old-root"}}},
		{Kind: backends.OwnedDomain, Name: "web", UUID: "fda0b804-b0c9-42df-87fe-ae1b5a5b85c3", Tenant: "t1", Active: true},
		{Kind: backends.OwnedNetwork, Name: "old-lan", UUID: "3146ec79-c852-49bc-9ac8-f59c2fe9d499", Tenant: "gone", Active: true},
	}
	if got := fmt.Sprintf("%+v", owned); got != fmt.Sprintf("%+v", want) {
		t.Errorf("ListOwned =\n%s\nwant\n%+v", got, want)
	}
}

// TestListLeftUploadsListsOnlyWhatSitesMarkersProve: on a session
// daemon, the uploads that did not finish are listed per pool from
// site's markers (their note says "site upload"), with the tenant the
// newest note names (none for a base image or an older site's seed),
// whether the partial volume is there, and whether the run is proved
// gone. Never listed: a volume without a marker or a seed's proof (a
// disk a domain undefined by hand left: nothing proves it site's), a
// marker whose note is not site's, and an upload a domain still has a
// disk on (by volume or by path, site's or not) or that an owner
// element lists. A whole seed is listed, with the VM it was made for,
// only when its bytes prove site made it (seed.Made) under its own name
// and no domain has it. A pool that is not active is said unread.
func TestListLeftUploadsListsOnlyWhatSitesMarkersProve(t *testing.T) {
	r, pool := storageRig(t)
	r.makePool(pool)
	gone, bare, older, used, claimed, foreign := seedOf("#1"), seedOf("#2"), seedOf("#3"), seedOf("#4"), seedOf("#5"), seedOf("#6")
	here := uploadmark.ThisRun
	here.PID, here.Tenant = 999999999, "gone" // no such process on this machine
	r.leftUpload(pool.Name, gone, true, here)
	r.leftUpload(pool.Name, bare, false, elsewhere("gone"))
	r.leftUpload(pool.Name, older, true, elsewhere(""))
	r.leftUpload(pool.Name, used, true, elsewhere("gone"))
	r.leftUpload(pool.Name, claimed, true, elsewhere("gone"))
	r.upload(pool.Name, "base.raw", pattern(4096))
	r.upload(pool.Name, uploadmark.Name("base.raw", 0), elsewhere("").Bytes())
	r.upload(pool.Name, uploadmark.Name("base.raw", 1), elsewhere("").Bytes())
	r.upload(pool.Name, foreign.Name, foreign.ISO[:4096])
	r.upload(pool.Name, uploadmark.Name(foreign.Name, 0), make([]byte, uploadmark.NoteSize)) // not site's note
	whole, attached := seedOf("#7"), seedOf("#8")
	r.upload(pool.Name, whole.Name, whole.ISO)                      // its domain undefined by hand
	r.upload(pool.Name, attached.Name, attached.ISO)                // a domain has it
	r.upload(pool.Name, "seed-0000000000000000.iso", pattern(8192)) // not site's bytes
	r.upload(pool.Name, "seed-000000000000000f.iso", whole.ISO)     // site's bytes, not its name
	r.upload(pool.Name, "orphan-root", pattern(4096))               // a disk whose domain went: no mark of site's
	define := func(x string) {
		t.Helper()
		dom, err := r.conn().DomainDefineXML(x)
		if err != nil {
			t.Fatal(err)
		}
		_ = dom.Free()
	}
	// Not site's: a disk on the partial seed's file.
	define(`<domain type="qemu"><name>byhand</name><memory>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>` +
		fileDisk(filepath.Join(pool.Path, used.Name), "vda") + `</devices></domain>`)
	define(`<domain type="qemu"><name>db</name><memory>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>` +
		volumeDisk(pool.Name, attached.Name, "hdc") + `</devices></domain>`)
	define(`<domain type="qemu"><name>web</name><memory>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os>` +
		`<metadata><site:owner xmlns:site="` + OwnerNS + `" tenant="t1"><site:volume pool="` + pool.Name + `" name="` + claimed.Name + `" role="seed"/></site:owner></metadata></domain>`)
	stopped := &model.Pool{Name: "stopped", Type: "dir", Path: filepath.Join(filepath.Dir(pool.Path), "stopped")}
	r.makePool(stopped)
	r.stopPool("stopped")
	r.d.ForgetObserved()
	if _, err := r.d.ListOwned(context.Background(), r.host); err != nil { // as site leftovers does first
		t.Fatal(err)
	}
	before := r.d.Calls()
	got, err := r.d.ListLeftUploads(context.Background(), r.host)
	if err != nil {
		t.Fatal(err)
	}
	calls := r.d.Calls() - before
	// A pool is listed with its UUID, which knows it under another URI
	// of the daemon: each pool's own, read back here.
	for i := range got {
		p, err := r.conn().LookupStoragePoolByName(got[i].Pool)
		if err != nil {
			t.Fatal(err)
		}
		uuid, err := p.GetUUIDString()
		_ = p.Free()
		if err != nil || uuid == "" || got[i].UUID != uuid {
			t.Errorf("pool %s listed with UUID %q, want %q (%v)", got[i].Pool, got[i].UUID, uuid, err)
		}
		got[i].UUID = ""
	}
	markers := func(name string, gens ...int) []string {
		var out []string
		for _, g := range gens {
			out = append(out, uploadmark.Name(name, g))
		}
		return out
	}
	far := elsewhere("").Who()
	want := []backends.PoolUploads{
		{Pool: pool.Name, Left: sortedUploads([]backends.LeftUpload{
			{Pool: pool.Name, Volume: gone.Name, Partial: true, Markers: markers(gone.Name, 0), Tenant: "gone", Seed: true, Run: here.Who(), RunGone: true},
			{Pool: pool.Name, Volume: bare.Name, Markers: markers(bare.Name, 0), Tenant: "gone", Seed: true, Run: far},
			{Pool: pool.Name, Volume: older.Name, Partial: true, Markers: markers(older.Name, 0), Seed: true, Run: far},
			{Pool: pool.Name, Volume: "base.raw", Partial: true, Markers: markers("base.raw", 0, 1), Run: far},
		}), Seeds: []backends.LeftSeed{{Pool: pool.Name, Volume: whole.Name, VM: "web"}}},
		{Pool: "stopped", Error: `storage pool "stopped" on ` + sessionHost + ` is not active: start it (virsh pool-start stopped)`},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("ListLeftUploads =\n%+v\nwant\n%+v", got, want)
	}
	// On the observation ListOwned made: the pools' listing, their
	// names and UUIDs (5); images' lookup, state and volumes (3), its handle (1)
	// and its definition, for the file each volume is (1); a note each
	// (lookup, info, stream, download: 4) for five uploads (not
	// claimed's, which an owner element lists, nor used's, whose file
	// byhand has; the foreign one's is read, and is not site's); the
	// bytes (4) of three seeds without a marker (not attached's: db
	// has it); stopped's lookup and state (2).
	if want := int64(5 + 3 + 1 + 1 + 5*4 + 3*4 + 2); calls != want {
		t.Errorf("ListLeftUploads made %d libvirt calls, want %d", calls, want)
	}
}

func sortedUploads(us []backends.LeftUpload) []backends.LeftUpload {
	slices.SortFunc(us, func(a, b backends.LeftUpload) int { return strings.Compare(a.Volume, b.Volume) })
	return us
}

package libvirt

import (
	"context"
	"fmt"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
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

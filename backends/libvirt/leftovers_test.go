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
	domain := func(name, metadata string) string {
		return `<domain type="test"><name>` + name + `</name><memory unit="MiB">64</memory><vcpu>1</vcpu><os><type>hvm</type></os>` + metadata + `</domain>`
	}
	fx := libvirttest.Fixture{
		Domains: []string{
			domain("old", `<metadata><site:owner `+ns+` tenant="gone"><site:volume pool="default" name="old-root" role="disk"/></site:owner></metadata>`),
			domain("web", `<metadata><site:owner `+ns+` tenant="t1"/></metadata>`),
			domain("byhand", ""),
		},
		Networks: []string{
			`<network><name>old-lan</name><metadata><site:owner ` + ns + ` tenant="gone"/></metadata><ip address="10.9.0.1" netmask="255.255.255.0"/></network>`,
		},
	}
	r := newRig(t, libvirttest.TestURI(t, fx), Options{})
	owned, err := r.d.ListOwned(context.Background(), r.host)
	if err != nil {
		t.Fatal(err)
	}
	want := []backends.Owned{
		{Kind: backends.OwnedDomain, Name: "old", Tenant: "gone", Active: true, Volumes: []backends.Volume{{Pool: "default", Name: "old-root"}}},
		{Kind: backends.OwnedDomain, Name: "web", Tenant: "t1", Active: true},
		{Kind: backends.OwnedNetwork, Name: "old-lan", Tenant: "gone", Active: true},
	}
	if got := fmt.Sprintf("%+v", owned); got != fmt.Sprintf("%+v", want) {
		t.Errorf("ListOwned =\n%s\nwant\n%+v", got, want)
	}
}

//go:build cgo && libvirt_dlopen

package netstep

import (
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/network"
)

// hostOps plans the DHCP host updates that turn the running network's
// entries live into want, and when config is set the persistent
// definition's entries persistent too. An update both need is one call
// (live and config): on a network whose running and persistent
// definitions are still one (libvirt's test driver), a live update
// changes both, and a second call for the config would fail. running
// says whether to update the running network at all.
func (p *planner) hostOps(live []libvirtxml.NetworkDHCPHost, running bool, persistent, want []libvirtxml.NetworkDHCPHost, config bool) {
	type key struct {
		kind OpKind
		xml  string
	}
	var order []key
	ops := map[key]*Op{}
	put := func(kind OpKind, xmls []string, isLive bool) {
		for _, x := range xmls {
			k := key{kind, x}
			o := ops[k]
			if o == nil {
				o = &Op{Kind: kind, Name: p.nw.Name, XML: x}
				ops[k] = o
				order = append(order, k)
			}
			if isLive {
				o.Live = true
			} else {
				o.Config = true
			}
		}
	}
	if running {
		put(OpHostDelete, network.HostXMLs(live, want), true)
	}
	if config {
		put(OpHostDelete, network.HostXMLs(persistent, want), false)
	}
	if running {
		put(OpHostAdd, network.HostXMLs(want, live), true)
	}
	if config {
		put(OpHostAdd, network.HostXMLs(want, persistent), false)
	}
	for _, k := range order {
		p.add(*ops[k])
	}
}

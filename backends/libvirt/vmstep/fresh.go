//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"
	"slices"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/compiler/hint"
)

// definitionAsObserved refuses the define of an existing domain whose
// persistent definition is no longer the one the plan read (o.Was):
// the definition to write was made from that one, keeping what site
// does not manage, so writing it would undo an edit made meanwhile
// (virsh edit, another tool) unseen. A new or transient domain has
// nothing to compare; nor has one this step renamed first, which
// changed its definition itself.
func (a *applier) definitionAsObserved(o op) error {
	if o.Kind != OpDefine || o.Was == "" || slices.ContainsFunc(a.done, func(d op) bool { return d.Kind == OpRename }) {
		return nil
	}
	dom, err := a.domain(o.Domain)
	if err != nil {
		return err
	}
	defer dom.Free()
	done := a.calling("GetXMLDesc of domain " + o.Domain)
	now, err := dom.GetXMLDesc(libvirt.DOMAIN_XML_INACTIVE)
	done()
	if err != nil {
		return fmt.Errorf("read the definition of domain %s on %s again before writing it: %w; %s", o.Domain, a.host, err, a.changedBefore())
	}
	if now != o.Was {
		return hint.Errorf(hint.Hint{Kind: hint.RunDiffAgain}, "domain %s on %s: its definition changed since it was observed (edited meanwhile), and writing what site planned would undo that edit unseen; %s",
			o.Domain, a.host, a.changedBefore())
	}
	return nil
}

//go:build cgo && libvirt_dlopen

package vmstep

import (
	"errors"
	"fmt"
	"strings"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/storage"
	"github.com/site-tools/site/compiler/hint"
)

// A VM step lists the volumes it makes for a domain in the domain's
// owner element, and points a disk of its definition at each, before it
// makes them (OpDefine and OpSetMetadata run before OpCreateVolume), so
// that a run killed in between leaves a listed volume missing, never a
// made one listed nowhere. But a create the daemon refuses made nothing:
// the volume may have appeared since the plan (another run, another
// tenant's run whose file was not loaded with this one, the operator by
// hand), or its file be in the pool's directory though libvirt does not
// list it. Left listed, it would be deleted by a later removal of the
// VM as site's; left as the definition's disk, the next run would take
// it for one the VM has attached already and skip the checks that keep
// another domain's disk from it. So the failed create withdraws both
// before the step returns its error.

// createDisk makes a disk's volume (blank, an overlay on its base, or a
// copy of it). When the daemon refuses, site made no volume: the
// domain's owner element and definition no longer claim it before the
// error is returned (see above).
func (a *applier) createDisk(o op) error {
	var err error
	if o.Base != "" {
		err = a.createFromBase(o)
	} else {
		err = a.w().CreateVolume(o.Pool, o.Volume, o.Bytes, nil)
	}
	if !errors.As(err, new(storage.NotMadeError)) {
		return err
	}
	return a.withdrawClaim(o, err)
}

// withdrawClaim takes the volume o failed to make out of the owner
// element and definition of o.Domain, and returns cause saying so and
// what to do.
func (a *applier) withdrawClaim(o op, cause error) error {
	what := o.Pool + "/" + o.Volume
	if err := a.unclaim(o.Domain, o.Pool, o.Volume); err != nil {
		h := hint.Hint{Kind: hint.RunDiffAgain,
			Command: fmt.Sprintf("take <site:volume pool=%q name=%q> out of the owner element and the disk on it out of the definition (virsh -c %s edit %s)", o.Pool, o.Volume, a.host, o.Domain)}
		return hint.Errorf(h, "%w; site did not make %s, but taking it out of domain %s failed too (%v): its owner element may still list it, and a removal of the VM would delete it",
			cause, what, o.Domain, err)
	}
	withdrawn := fmt.Sprintf("domain %s no longer lists it in its owner element nor has a disk on it, so a removal of the VM keeps it", o.Domain)
	switch {
	case conn.IsCode(cause, libvirt.ERR_STORAGE_VOL_EXIST):
		h := hint.Hint{Kind: hint.RunDiffAgain, Command: fmt.Sprintf("find out whose it is (virsh -c %s vol-dumpxml --pool %s %s) or name another volume in the spec", a.host, o.Pool, o.Volume)}
		return hint.Errorf(h, "%w: volume %s appeared after this run's plan (another run, one whose file was not loaded with this one, or by hand), and site did not make it: %s",
			cause, what, withdrawn)
	case fileInTheWay(cause):
		return hint.Errorf(hint.Hint{Kind: hint.RunDiffAgain}, "%w: a file is at the path of volume %s in the pool's directory, though libvirt does not list it as a volume, and site did not make it (site diff says what it is): %s",
			cause, what, withdrawn)
	}
	return fmt.Errorf("%w; site made no volume %s, so %s; the next run makes it again", cause, what, withdrawn)
}

// fileInTheWay reports whether a refused create says a file is at the
// new volume's path already: libvirt checks the path of a dir pool's
// volume before it builds one ("volume target path … already exists"),
// and a raw volume is created exclusively ("Failed to create file …:
// File exists", on a dangling symbolic link, which the check follows).
func fileInTheWay(err error) bool {
	var lerr libvirt.Error
	if !errors.As(err, &lerr) {
		return false
	}
	m := strings.ToLower(lerr.Message)
	return strings.Contains(m, "already exists") || strings.Contains(m, "file exists")
}

// unclaim takes volume pool/name out of the owner element of domain
// (persistent and live) and drops its persistent definition's disks on
// that volume. site never hot-plugs a disk, so the running guest has
// none on a volume site was about to make.
func (a *applier) unclaim(domain, pool, name string) error {
	dom, err := a.domain(domain)
	if err != nil {
		return err
	}
	defer dom.Free()
	if err := a.unclaimDefined(dom, domain, pool, name); err != nil {
		return err
	}
	return a.unclaimLive(dom, domain, pool, name)
}

// unclaimDefined writes the persistent definition again without the
// claim, owner element and disks in one DefineXML.
func (a *applier) unclaimDefined(dom *libvirt.Domain, domain, pool, name string) error {
	def, err := a.definition(dom, domain, libvirt.DOMAIN_XML_INACTIVE)
	if err != nil {
		return err
	}
	own, others, err := ownership.Parse(metadataOf(def))
	if err != nil {
		return fmt.Errorf("domain %s: %w", domain, err)
	}
	changed := dropDisksOn(def, pool, name)
	if own != nil && own.Drop(pool, name) {
		def.Metadata = &libvirtxml.DomainMetadata{XML: own.MetadataXML(others)}
		changed = true
	}
	if !changed {
		return nil
	}
	x, err := def.Marshal()
	if err != nil {
		return fmt.Errorf("domain %s: marshal its definition: %w", domain, err)
	}
	done := a.calling("DomainDefineXML " + domain)
	defined, err := a.c.DomainDefineXML(x)
	done()
	if err != nil {
		return fmt.Errorf("define domain %s on %s again: %w", domain, a.host, err)
	}
	return defined.Free()
}

// unclaimLive sets the running guest's owner element without the volume.
func (a *applier) unclaimLive(dom *libvirt.Domain, domain, pool, name string) error {
	done := a.calling("IsActive of domain " + domain)
	active, err := dom.IsActive()
	done()
	if err != nil {
		return fmt.Errorf("domain %s on %s: %w", domain, a.host, err)
	}
	if !active {
		return nil
	}
	def, err := a.definition(dom, domain, 0)
	if err != nil {
		return err
	}
	own, _, err := ownership.Parse(metadataOf(def))
	if err != nil {
		return fmt.Errorf("domain %s: %w", domain, err)
	}
	if own == nil || !own.Drop(pool, name) {
		return nil
	}
	done = a.calling("SetMetadata of domain " + domain)
	err = dom.SetMetadata(libvirt.DOMAIN_METADATA_ELEMENT, own.Element(), ownership.Prefix, ownership.NS, libvirt.DOMAIN_AFFECT_LIVE)
	done()
	if err != nil {
		return fmt.Errorf("set the live owner metadata of %s on %s: %w", domain, a.host, err)
	}
	return nil
}

// definition reads dom's definition (flags: DOMAIN_XML_INACTIVE for the
// persistent one, 0 for the live one).
func (a *applier) definition(dom *libvirt.Domain, domain string, flags libvirt.DomainXMLFlags) (*libvirtxml.Domain, error) {
	done := a.calling("GetXMLDesc of domain " + domain)
	x, err := dom.GetXMLDesc(flags)
	done()
	if err != nil {
		return nil, fmt.Errorf("read the definition of domain %s on %s: %w", domain, a.host, err)
	}
	var def libvirtxml.Domain
	if err := def.Unmarshal(x); err != nil {
		return nil, fmt.Errorf("parse the definition of domain %s on %s: %w", domain, a.host, err)
	}
	return &def, nil
}

// dropDisksOn removes def's disks on volume pool/name, and reports
// whether it had any.
func dropDisksOn(def *libvirtxml.Domain, pool, name string) bool {
	if def.Devices == nil {
		return false
	}
	var kept []libvirtxml.DomainDisk
	for _, d := range def.Devices.Disks {
		if d.Source != nil && d.Source.Volume != nil && d.Source.Volume.Pool == pool && d.Source.Volume.Volume == name {
			continue
		}
		kept = append(kept, d)
	}
	dropped := len(kept) != len(def.Devices.Disks)
	def.Devices.Disks = kept
	return dropped
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/ownership"
)

// hostObs is one run's observation of one host. Domains and networks are
// listed once; pools and volumes are looked up by name when a step needs
// them and remembered.
type hostObs struct {
	d    *Driver
	conn *libvirt.Connect
	host string

	domType  string // wanted <domain type>: kvm, qemu, or the driver's own
	domains  map[string]*domObs
	networks map[string]*netObs

	// The volumes read while planning, shared by every view of the
	// host (renamedAs).
	*volCache
}

// volCache holds what a host's plans read of its storage, once per run.
type volCache struct {
	mu    sync.Mutex
	vols  map[string]*volObs  // by pool "\x00" name
	names map[string][]string // pool -> its volumes' names, listed once
	dirs  map[string]*poolDir // declared pool that does not exist yet -> its directory, read once
	pools map[string]error    // pool name -> nil when active
	// dirPaths maps a pool to its directory ("" for a pool of another
	// kind), read where a volume it does not list may have a file there
	// (unlisted.go).
	dirPaths map[string]string
	// heads holds volumes' first bytes by pool "\x00" name, where site
	// reads what a header names (probed.go).
	heads map[string][]byte
}

// domObs is what was seen of one domain.
type domObs struct {
	Name       string
	Running    bool // any state but shut off and crashed
	State      libvirt.DomainState
	Persistent bool
	Autostart  bool
	LiveXML    string
	// InactiveXML is the persistent definition, "" for a transient domain.
	InactiveXML string
	Live        *libvirtxml.Domain
	Inactive    *libvirtxml.Domain // nil for a transient domain
	Owner       *ownership.Owner   // from the persistent definition, else the live one
	Others      string             // other applications' metadata, kept on redefine
}

// ID is the running domain's ID, -1 when it is shut off.
func (o *domObs) ID() int {
	if o.Running && o.Live != nil && o.Live.ID != nil {
		return *o.Live.ID
	}
	return -1
}

// netObs is what was seen of one network.
type netObs struct {
	Name       string
	Active     bool
	Autostart  bool
	Persistent bool
	XML        string // the persistent definition (the current one on the test driver)
	Def        *libvirtxml.Network
	// LiveXML and Live are the running network's definition, what it
	// serves until it is restarted; "" and nil when it is not active.
	LiveXML string
	Live    *libvirtxml.Network
	Owner   *ownership.Owner
	Others  string
}

// volObs is what was seen of one volume.
type volObs struct {
	Exists   bool
	Capacity uint64
	Format   string // the volume's format (raw, qcow2, …); "raw" when unknown
	Path     string // its file on the host
	// Backing is the path of the volume's backing store (the base image
	// of a qcow2 overlay), "" when it has none.
	Backing string
	// NoPool says why the pool cannot be read yet (poolMissing,
	// poolInactive): a declared pool's step makes and starts it, and the
	// steps of the volumes in it plan them again at apply time, once
	// they can be read. "" when it was read.
	NoPool string
	// Unknown, for a volume of a declared pool that does not exist
	// yet, says why site could not read its file in the pool's
	// directory as libvirt will once the pool runs (pooldir.go); "" when
	// it could, or the pool exists.
	Unknown string
	// Partial: the volume is there, but an upload into it has not
	// finished (a marker is beside it, see uploadmark.go): another run
	// uploads it now, or one that did not finish left it. It reads as
	// missing (Exists false), and its step uploads it, or waits for the
	// run that does. Markers names the markers. Only hostObs.uploaded
	// sets them.
	Partial bool
	Markers []string
}

// Why a declared pool's volumes cannot be read yet.
const (
	// poolMissing: the pool does not exist, so libvirt knows none of its
	// volumes; they are planned as missing.
	poolMissing = "does not exist yet"
	// poolInactive: the pool exists but does not run, so libvirt cannot
	// list its volumes, though their files are in its directory: whether
	// one exists is unknown until the pool starts, and the plan says so
	// rather than claim to create it.
	poolInactive = "is not active"
)

// unread reports whether v is in a pool that exists but does not run,
// or in one that does not exist yet whose directory site could not read,
// so whether v exists is unknown.
func (v *volObs) unread() bool { return v.NoPool == poolInactive || v.Unknown != "" }

// observeHost lists the host's domains and networks with everything site
// compares. Any failure fails the whole observation: a partial view must
// not plan deletes.
func observeHost(d *Driver, c *libvirt.Connect, host string) (*hostObs, error) {
	h := &hostObs{d: d, conn: c, host: host, domains: map[string]*domObs{}, networks: map[string]*netObs{},
		volCache: &volCache{vols: map[string]*volObs{}, pools: map[string]error{}}}
	server := d.server(host)
	done := d.calling(server, "GetCapabilities")
	capsXML, err := c.GetCapabilities()
	done()
	if err != nil {
		return nil, fmt.Errorf("read capabilities of %s: %w", host, err)
	}
	if h.domType, err = domainType(capsXML); err != nil {
		return nil, fmt.Errorf("%s: %w", host, err)
	}
	if d.opts.DomainType != "" {
		h.domType = d.opts.DomainType
	}
	if h.domains, err = observeDomains(d, c, host); err != nil {
		return nil, err
	}
	if h.networks, err = observeNetworks(d, c, host); err != nil {
		return nil, err
	}
	h.namesBridgedNICs()
	return h, nil
}

// observeDomains reads every domain on host, by name: for the host's
// observation, and again right before a define relies on which volumes
// the others have (voluse.go).
func observeDomains(d *Driver, c *libvirt.Connect, host string) (map[string]*domObs, error) {
	server := d.server(host)
	done := d.calling(server, "ListAllDomains")
	doms, err := c.ListAllDomains(0)
	done()
	if err != nil {
		return nil, fmt.Errorf("list domains on %s: %w", host, err)
	}
	defer func() {
		for i := range doms {
			_ = doms[i].Free()
		}
	}()
	m := map[string]*domObs{}
	for i := range doms {
		// The handle holds the name: asking for it calls no daemon.
		name, _ := doms[i].GetName()
		done := d.await(server, "GetState, IsPersistent, GetAutostart, GetXMLDesc of domain "+name)
		o, err := observeDomain(d, &doms[i])
		done()
		if err != nil {
			if conn.IsCode(err, libvirt.ERR_NO_DOMAIN) {
				continue // undefined while we looked: it is gone
			}
			return nil, fmt.Errorf("observe a domain on %s: %w", host, err)
		}
		m[o.Name] = o
	}
	return m, nil
}

// observeNetworks reads every network on host, by name: for the host's
// observation, and again right before a define relies on what the
// others hold (netapply.go).
func observeNetworks(d *Driver, c *libvirt.Connect, host string) (map[string]*netObs, error) {
	server := d.server(host)
	done := d.calling(server, "ListAllNetworks")
	nets, err := c.ListAllNetworks(0)
	done()
	if err != nil {
		return nil, fmt.Errorf("list networks on %s: %w", host, err)
	}
	defer func() {
		for i := range nets {
			_ = nets[i].Free()
		}
	}()
	m := map[string]*netObs{}
	for i := range nets {
		name, _ := nets[i].GetName() // held by the handle, as a domain's
		done := d.await(server, "IsActive, IsPersistent, GetAutostart, GetXMLDesc of network "+name)
		o, err := observeNetwork(d, &nets[i])
		done()
		if err != nil {
			if conn.IsCode(err, libvirt.ERR_NO_NETWORK) {
				continue
			}
			return nil, fmt.Errorf("observe a network on %s: %w", host, err)
		}
		m[o.Name] = o
	}
	return m, nil
}

func observeDomain(d *Driver, dom *libvirt.Domain) (*domObs, error) {
	o := &domObs{}
	var err error
	d.call()
	if o.State, _, err = dom.GetState(); err != nil {
		return nil, err
	}
	o.Running = o.State != libvirt.DOMAIN_SHUTOFF && o.State != libvirt.DOMAIN_CRASHED && o.State != libvirt.DOMAIN_NOSTATE
	d.call()
	if o.Persistent, err = dom.IsPersistent(); err != nil {
		return nil, err
	}
	d.call()
	if o.Autostart, err = dom.GetAutostart(); err != nil {
		return nil, err
	}
	d.call()
	if o.LiveXML, err = dom.GetXMLDesc(0); err != nil {
		return nil, err
	}
	o.Live = &libvirtxml.Domain{}
	if err := o.Live.Unmarshal(o.LiveXML); err != nil {
		return nil, fmt.Errorf("parse domain XML: %w", err)
	}
	o.Name = o.Live.Name
	meta := o.Live.Metadata
	if o.Persistent {
		d.call()
		if o.InactiveXML, err = dom.GetXMLDesc(libvirt.DOMAIN_XML_INACTIVE); err != nil {
			return nil, err
		}
		o.Inactive = &libvirtxml.Domain{}
		if err := o.Inactive.Unmarshal(o.InactiveXML); err != nil {
			return nil, fmt.Errorf("parse inactive XML of %s: %w", o.Name, err)
		}
		meta = o.Inactive.Metadata
	}
	if meta != nil {
		if o.Owner, o.Others, err = ownership.Parse(meta.XML); err != nil {
			return nil, fmt.Errorf("domain %s: %w", o.Name, err)
		}
	}
	return o, nil
}

func observeNetwork(d *Driver, n *libvirt.Network) (*netObs, error) {
	o := &netObs{}
	var err error
	d.call()
	if o.Active, err = n.IsActive(); err != nil {
		return nil, err
	}
	d.call()
	if o.Persistent, err = n.IsPersistent(); err != nil {
		return nil, err
	}
	d.call()
	if o.Autostart, err = n.GetAutostart(); err != nil {
		return nil, err
	}
	// The persistent definition is what site writes and compares. The
	// test driver rejects the flag (unsupported flags 0x1); there the
	// current definition is the only one.
	d.call()
	if o.XML, err = n.GetXMLDesc(libvirt.NETWORK_XML_INACTIVE); conn.IsCode(err, libvirt.ERR_INVALID_ARG) {
		d.call()
		o.XML, err = n.GetXMLDesc(0)
	}
	if err != nil {
		return nil, err
	}
	o.Def = &libvirtxml.Network{}
	if err := o.Def.Unmarshal(o.XML); err != nil {
		return nil, fmt.Errorf("parse network XML: %w", err)
	}
	o.Name = o.Def.Name
	if o.Active {
		// A define on a running network changes only its persistent
		// definition: the running one is compared too, so what waits
		// for a restart shows as pending.
		d.call()
		if o.LiveXML, err = n.GetXMLDesc(0); err != nil {
			return nil, err
		}
		o.Live = &libvirtxml.Network{}
		if err := o.Live.Unmarshal(o.LiveXML); err != nil {
			return nil, fmt.Errorf("parse the running definition of network %s: %w", o.Name, err)
		}
	}
	if o.Def.Metadata != nil {
		if o.Owner, o.Others, err = ownership.Parse(o.Def.Metadata.XML); err != nil {
			return nil, fmt.Errorf("network %s: %w", o.Name, err)
		}
	}
	return o, nil
}

// domainType picks the <domain type> for new domains from the host's
// capabilities: kvm when offered for the host's architecture, else qemu
// (TCG), else the first one offered (the test driver's "test").
func domainType(capsXML string) (string, error) {
	var caps libvirtxml.Caps
	if err := caps.Unmarshal(capsXML); err != nil {
		return "", fmt.Errorf("parse capabilities: %w", err)
	}
	arch := caps.Host.CPU.Arch
	var offered []string
	for _, g := range caps.Guests {
		if g.OSType != "hvm" || (arch != "" && g.Arch.Name != arch) {
			continue
		}
		for _, dt := range g.Arch.Domains {
			offered = append(offered, dt.Type)
		}
	}
	for _, want := range []string{"kvm", "qemu"} {
		for _, t := range offered {
			if t == want {
				return t, nil
			}
		}
	}
	if len(offered) > 0 {
		return offered[0], nil
	}
	return "", errors.New("the host offers no hvm guest for its architecture " + arch)
}

// fingerprint hashes what was observed, in a stable order.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// domainNames returns the observed domain names in order.
func (h *hostObs) domainNames() []string {
	out := make([]string, 0, len(h.domains))
	for n := range h.domains {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

//go:build cgo && libvirt_dlopen

package hosts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/ownership"
)

// Domain is what was seen of one domain.
type Domain struct {
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
func (o *Domain) ID() int {
	if o.Running && o.Live != nil && o.Live.ID != nil {
		return *o.Live.ID
	}
	return -1
}

// Network is what was seen of one network.
type Network struct {
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

// observeHost lists the host's domains and networks with everything site
// compares. Any failure fails the whole observation: a partial view must
// not plan deletes.
func observeHost(s *Set, c *libvirt.Connect, host string) (*Obs, error) {
	h := &Obs{Set: s, Conn: c, Host: host, kept: &kept{m: map[string]any{}}}
	server := s.Server(host)
	done := s.Calling(server, "GetCapabilities")
	capsXML, err := c.GetCapabilities()
	done()
	if err != nil {
		return nil, fmt.Errorf("read capabilities of %s: %w", host, err)
	}
	if h.DomType, err = domainType(capsXML); err != nil {
		return nil, fmt.Errorf("%s: %w", host, err)
	}
	if s.Opts.DomainType != "" {
		h.DomType = s.Opts.DomainType
	}
	if h.Domains, err = ObserveDomains(s, c, host); err != nil {
		return nil, err
	}
	if h.Networks, err = ObserveNetworks(s, c, host); err != nil {
		return nil, err
	}
	h.namesBridgedNICs()
	return h, nil
}

// ObserveDomains reads every domain on host, by name: for the host's
// observation, and again right before a define relies on which volumes
// the others have (vmstep, before a define).
func ObserveDomains(s *Set, c *libvirt.Connect, host string) (map[string]*Domain, error) {
	server := s.Server(host)
	done := s.Calling(server, "ListAllDomains")
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
	m := map[string]*Domain{}
	for i := range doms {
		// The handle holds the name: asking for it calls no daemon.
		name, _ := doms[i].GetName()
		done := s.Await(server, "GetState, IsPersistent, GetAutostart, GetXMLDesc of domain "+name)
		o, err := ObserveDomain(s, &doms[i])
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

// ObserveNetworks reads every network on host, by name: for the host's
// observation, and again right before a define relies on what the
// others hold (netstep, before a define).
func ObserveNetworks(s *Set, c *libvirt.Connect, host string) (map[string]*Network, error) {
	server := s.Server(host)
	done := s.Calling(server, "ListAllNetworks")
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
	m := map[string]*Network{}
	for i := range nets {
		name, _ := nets[i].GetName() // held by the handle, as a domain's
		done := s.Await(server, "IsActive, IsPersistent, GetAutostart, GetXMLDesc of network "+name)
		o, err := observeNetwork(s, &nets[i])
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

func ObserveDomain(s *Set, dom *libvirt.Domain) (*Domain, error) {
	o := &Domain{}
	var err error
	s.Call()
	if o.State, _, err = dom.GetState(); err != nil {
		return nil, err
	}
	o.Running = o.State != libvirt.DOMAIN_SHUTOFF && o.State != libvirt.DOMAIN_CRASHED && o.State != libvirt.DOMAIN_NOSTATE
	s.Call()
	if o.Persistent, err = dom.IsPersistent(); err != nil {
		return nil, err
	}
	s.Call()
	if o.Autostart, err = dom.GetAutostart(); err != nil {
		return nil, err
	}
	s.Call()
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
		s.Call()
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

func observeNetwork(s *Set, n *libvirt.Network) (*Network, error) {
	o := &Network{}
	var err error
	s.Call()
	if o.Active, err = n.IsActive(); err != nil {
		return nil, err
	}
	s.Call()
	if o.Persistent, err = n.IsPersistent(); err != nil {
		return nil, err
	}
	s.Call()
	if o.Autostart, err = n.GetAutostart(); err != nil {
		return nil, err
	}
	// The persistent definition is what site writes and compares. The
	// test driver rejects the flag (unsupported flags 0x1); there the
	// current definition is the only one.
	s.Call()
	if o.XML, err = n.GetXMLDesc(libvirt.NETWORK_XML_INACTIVE); conn.IsCode(err, libvirt.ERR_INVALID_ARG) {
		s.Call()
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
		s.Call()
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

// Fingerprint hashes what was observed, in a stable order.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// UUID is the domain's UUID, from the definition its owner element was
// read from.
func (o *Domain) UUID() string {
	if o.Inactive != nil {
		return o.Inactive.UUID
	}
	if o.Live != nil {
		return o.Live.UUID
	}
	return ""
}

// UUID is the network's UUID.
func (o *Network) UUID() string {
	if o.Def != nil {
		return o.Def.UUID
	}
	if o.Live != nil {
		return o.Live.UUID
	}
	return ""
}

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/spelling"
	"github.com/site-tools/site/compiler/visible"
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
	Owner       *owner             // from the persistent definition, else the live one
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
	Owner   *owner
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
			if isCode(err, libvirt.ERR_NO_DOMAIN) {
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
			if isCode(err, libvirt.ERR_NO_NETWORK) {
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
		if o.Owner, o.Others, err = parseOwner(meta.XML); err != nil {
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
	if o.XML, err = n.GetXMLDesc(libvirt.NETWORK_XML_INACTIVE); isCode(err, libvirt.ERR_INVALID_ARG) {
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
		if o.Owner, o.Others, err = parseOwner(o.Def.Metadata.XML); err != nil {
			return nil, fmt.Errorf("network %s: %w", o.Name, err)
		}
	}
	return o, nil
}

// volume looks a volume up by pool and name, once per run. A missing
// volume is not an error; a missing or inactive pool is, and so is a
// file in the pool's directory that libvirt does not list (unlisted).
// declared is the pool as site.cue declares it, nil when it does not.
func (h *hostObs) volume(pool, name string, declared *model.Pool) (*volObs, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if v, ok := h.vols[pool+"\x00"+name]; ok {
		return v, nil
	}
	p, err := h.pool(pool)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	v := &volObs{}
	h.d.call()
	vol, err := p.LookupStorageVolByName(name)
	switch {
	case isCode(err, libvirt.ERR_NO_STORAGE_VOL):
		if err := h.unlisted(p, pool, name, declared); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("look up volume %s in pool %s on %s: %w", name, pool, h.host, err)
	default:
		defer vol.Free()
		h.d.call()
		info, err := vol.GetInfo()
		if err != nil {
			return nil, fmt.Errorf("read volume %s/%s on %s: %w", pool, name, h.host, err)
		}
		v.Exists, v.Capacity, v.Format = true, info.Capacity, "raw"
		// The disk's driver type must match the volume's format: a qcow2
		// image attached as raw would show its header to the guest.
		h.d.call()
		x, err := vol.GetXMLDesc(0)
		if err != nil {
			return nil, fmt.Errorf("read volume %s/%s on %s: %w", pool, name, h.host, err)
		}
		var def libvirtxml.StorageVolume
		if err := def.Unmarshal(x); err != nil {
			return nil, fmt.Errorf("parse volume %s/%s on %s: %w", pool, name, h.host, err)
		}
		if def.Target != nil && def.Target.Format != nil && def.Target.Format.Type != "" {
			v.Format = def.Target.Format.Type
		}
		if def.Target != nil {
			v.Path = def.Target.Path
		}
		if def.BackingStore != nil {
			v.Backing = def.BackingStore.Path
		}
	}
	h.vols[pool+"\x00"+name] = v
	return v, nil
}

// pool opens an active pool; the caller frees it. h.mu is held.
func (h *hostObs) pool(name string) (*libvirt.StoragePool, error) {
	if err, ok := h.pools[name]; ok && err != nil {
		return nil, err
	}
	h.d.call()
	p, err := h.conn.LookupStoragePoolByName(name)
	if err != nil {
		if isCode(err, libvirt.ERR_NO_STORAGE_POOL) {
			err = noPoolError{poolMissing, fmt.Errorf("storage pool %q does not exist on %s: declare it in site.cue (hosts: NAME: pools: %s: {type: \"dir\", path: DIR}) so site creates it, or define it (virsh pool-define-as %s dir --target DIR; virsh pool-start %s)", name, h.host, name, name, name)}
		} else {
			err = fmt.Errorf("look up storage pool %s on %s: %w", name, h.host, err)
		}
		h.pools[name] = err
		return nil, err
	}
	if _, seen := h.pools[name]; !seen {
		h.d.call()
		active, err := p.IsActive()
		if err == nil && !active {
			err = noPoolError{poolInactive, fmt.Errorf("storage pool %q on %s is not active: start it (virsh pool-start %s)", name, h.host, name)}
		}
		h.pools[name] = err
		if err != nil {
			p.Free()
			return nil, err
		}
	}
	return p, nil
}

// noPoolError says a pool does not exist on the host or is not active,
// so its volumes cannot be read.
type noPoolError struct {
	why string // poolMissing, poolInactive
	error
}

func (e noPoolError) Unwrap() error { return e.error }

// declaredVolume is volume for a volume whose pool site.cue declares
// (declared, nil for another pool): while the pool does not exist yet or
// is not active (its step makes and starts it before this volume's
// step), the volume is not an error but one whose NoPool says why
// libvirt could not read it. One in a pool that does not exist yet is
// read from the pool's directory where site can (newPoolVolume).
func (h *hostObs) declaredVolume(pool, name string, declared *model.Pool) (*volObs, error) {
	v, err := h.volume(pool, name, declared)
	var np noPoolError
	if declared != nil && errors.As(err, &np) {
		if np.why == poolMissing {
			return h.newPoolVolume(declared, name), nil
		}
		return &volObs{NoPool: np.why}, nil
	}
	return v, err
}

// uploaded is declaredVolume for a volume site fills by uploading (a
// base image, a cloud-init seed): one with an upload marker beside it
// (see uploadmark.go) is one whose upload has not finished, and reads
// as missing, with Partial set.
func (h *hostObs) uploaded(pool, name string, declared *model.Pool) (*volObs, error) {
	v, err := h.declaredVolume(pool, name, declared)
	if err != nil || !v.Exists {
		return v, err
	}
	ms, err := h.markers(pool, name)
	if err != nil || len(ms) == 0 {
		return v, err
	}
	partial := *v
	partial.Exists, partial.Partial = false, true
	for _, m := range ms {
		partial.Markers = append(partial.Markers, m.Name)
	}
	return &partial, nil
}

// markers lists the upload markers of volume name in pool (see
// uploadmark.go), from one listing of the pool per observation.
func (h *hostObs) markers(pool, name string) ([]marker, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	names, err := h.volNames(pool)
	if err != nil {
		return nil, err
	}
	return markersIn(names, name), nil
}

// volNames lists the names of pool's volumes, once per observation;
// h.mu is held.
func (h *hostObs) volNames(pool string) ([]string, error) {
	if names, ok := h.names[pool]; ok {
		return names, nil
	}
	p, err := h.pool(pool)
	if err != nil {
		return nil, err
	}
	defer p.Free()
	h.d.call()
	names, err := p.ListStorageVolumes()
	if err != nil {
		return nil, fmt.Errorf("list the volumes of pool %s on %s: %w", pool, h.host, err)
	}
	if h.names == nil {
		h.names = map[string][]string{}
	}
	h.names[pool] = names
	return names, nil
}

// volumesThere names the volumes of pool for a message that did not
// find volume missing (", which holds a, b"; upload markers left out),
// with the one near it, if any (" (did you mean a?)"); "" when they
// cannot be listed.
func (h *hostObs) volumesThere(pool, missing string) string {
	h.mu.Lock()
	names, err := h.volNames(pool)
	h.mu.Unlock()
	if err != nil {
		return ""
	}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ", which is empty"
	}
	return ", which holds " + someNames(out) + didYouMean(missing, out)
}

// poolsThere names the host's storage pools for a message that did not
// find pool missing ("; pools there: a, b", with " (did you mean a?)"
// when one is near it), "" when they cannot be listed.
func (h *hostObs) poolsThere(missing string) string {
	h.d.call()
	pools, err := h.conn.ListAllStoragePools(0)
	if err != nil {
		return ""
	}
	var out []string
	for _, p := range pools {
		if n, err := p.GetName(); err == nil {
			out = append(out, n)
		}
		_ = p.Free()
	}
	return "; pools there: " + someNames(out) + didYouMean(missing, out)
}

// didYouMean is " (did you mean NAME?)" for the one name in names near
// missing (spelling.Nearest, the rule of every "did you mean" in site),
// else "".
func didYouMean(missing string, names []string) string {
	if near := spelling.Nearest(missing, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// someNames lists names sorted, at most 20 of them, for a message.
func someNames(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	const most = 20
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
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

// libvirtError shows a libvirt error as libvirt's own message; the Go
// binding's virError(Code=38, Domain=7, Message='...') means nothing to
// a user; escaped on one line (visible.Short). Unwrap keeps the code.
type libvirtError struct{ e libvirt.Error }

func (l libvirtError) Error() string { return visible.Short(l.e.Message) }
func (l libvirtError) Unwrap() error { return l.e }

// plainError turns a libvirt error into a libvirtError; others pass.
func plainError(err error) error {
	if lerr, ok := err.(libvirt.Error); ok && lerr.Message != "" {
		return libvirtError{lerr}
	}
	return err
}

// isCode reports whether err is a libvirt error with code.
func isCode(err error, code libvirt.ErrorNumber) bool {
	var lerr libvirt.Error
	return errors.As(err, &lerr) && lerr.Code == code
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

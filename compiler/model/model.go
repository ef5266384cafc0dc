// Package model holds the typed form of a loaded and validated set of
// tenant specs. Every other package reads it; it imports nothing of ours.
//
// All DNS names in a model are canonical (absolute, lower case, trailing
// dot, IDNA A-labels): the compiler canonicalises them once at load time,
// so code that reads the model compares names with ==.
package model

// Pos is a position in a user's spec file, for error messages.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// IsValid reports whether p names a real position.
func (p Pos) IsValid() bool { return p.File != "" }

// Spec is everything loaded in one run: the tenants in scope, sorted by
// name, and the operator's secret stores they may need.
type Spec struct {
	Tenants []*Tenant
	// Vaults are the operator's stores (site.cue vaults), by name. A
	// credential's VaultRef.Vault is a key of this map.
	Vaults map[string]*Vault
}

// Tenant is one customer site.
type Tenant struct {
	Name   string
	Domain string // canonical
	Zones  []*Zone
	// Names are the single names site.cue grants the tenant inside
	// other tenants' zones (dns: names), one Zone per zone they lie in,
	// each with Within set.
	Names    []*Zone `json:",omitempty"`
	Networks []*Network
	VMs      []*VM
	Pos      Pos
	// Locks is where the tenant's apply lock lives, as site.cue says
	// (the same for every tenant); nil when site.cue names no store.
	Locks *Locks `json:",omitempty"`
}

// Locks is the store of every tenant's apply lock, site.cue's locks:
// exactly one of Dir, Vault and PowerDNS is set.
type Locks struct {
	Dir      string    // an absolute directory, a file per tenant
	Vault    *Vault    // a KV v2 secret per tenant in this store
	PowerDNS *LockZone // metadata entries in one zone
	Pos      Pos
}

// LockZone is the PowerDNS zone whose metadata holds the apply locks.
type LockZone struct {
	Provider Provider
	Zone     string // canonical
	// Journal is the zone of the same server whose metadata keeps the
	// tenants' journals (canonical), "" when site.cue names none: never
	// Zone, whose metadata every lock read downloads.
	Journal string
}

// Credential is a reference to a secret, never the secret itself.
// Exactly one of Env and Vault is set. Only the operator's file
// (site.cue) holds credentials: a tenant never names one.
type Credential struct {
	Env   string    `json:"env,omitempty"`
	Vault *VaultRef `json:"vault,omitempty"`
}

// Source names where the credential's value comes from, for messages
// about a credential a service refused: "env NAME" or "vault STORE
// PATH#KEY". Never the value.
func (c Credential) Source() string {
	switch {
	case c.Env != "":
		return "env " + c.Env
	case c.Vault != nil:
		return "vault " + c.Vault.Vault + " " + c.Vault.Path + "#" + c.Vault.Key
	}
	return "no source"
}

// VaultRef names one key of a KV v2 secret in one of the operator's
// stores.
type VaultRef struct {
	Vault string `json:"vault"` // a key of Spec.Vaults
	Path  string `json:"path"`
	Key   string `json:"key"`
	// Pos is where site.cue writes the reference, so a path or key the
	// store does not hold is pointed to; not part of what is read.
	Pos Pos `json:"-"`
}

// Vault is one of the operator's Vault/OpenBao stores and how site
// authenticates to it.
type Vault struct {
	Name  string     // its name in site.cue
	Addrs []string   // tried in order
	Mount string     // KV v2 mount, "secret" by default
	Token Credential // how site authenticates; env VAULT_TOKEN by default
	// AppRole, when set, logs in with a role and secret id instead of Token.
	AppRole *AppRole
	// the operator allows http:// to a non-loopback address (site.cue: plaintext: true)
	Plaintext bool
	Pos       Pos
}

// AppRole names the credentials of a Vault AppRole login.
type AppRole struct {
	RoleID   Credential
	SecretID Credential
	Mount    string // "approle" by default
}

// Zone is one DNS zone and every record site writes into it.
type Zone struct {
	Tenant   string
	Name     string // canonical
	Provider Provider
	// Providers are every provider of a zone that names several
	// (provider: ["pdns", "pdns2"]), in the spec's order; nil for one.
	// Each serves the same records from a step of its own; in that
	// step's copy of the zone (OnProvider), Provider is the one it
	// serves, and the first everywhere else.
	Providers []Provider `json:",omitempty"`
	TTL       uint32     // zone default
	RRsets    []*RRset
	// Ignore lists the live RRsets site leaves alone (see IgnoreRule).
	Ignore []IgnoreRule `json:",omitempty"`
	// SOA sets fields of the zone's SOA record; nil leaves it alone.
	SOA *SOA `json:",omitempty"`
	// DNSSEC asks PowerDNS to sign the zone (one active key); on
	// Cloudflare it asks only for a report of Cloudflare's DNSSEC status
	// and DS. site never writes the signer's records, nor unsigns.
	DNSSEC bool `json:",omitempty"`
	// SignedChildren are the tenant's signed zones whose nearest
	// enclosing zone of the tenant this is: it publishes their DS,
	// read from their keys (or from what the child's step read of its
	// signer, see backends.SignerDS) when it is planned; its step
	// depends on theirs, so a key made in the same apply is there to
	// read. Parent and child may be on either provider.
	SignedChildren []*Zone `json:"-"`
	// DSParent is the zone whose SignedChildren hold this one: it
	// publishes this zone's DS, so no note asks anyone to ("" when no
	// zone of the tenant does).
	DSParent string `json:"-"`
	// Within is set on the zone of a tenant's single names (Tenant.Names):
	// the tenant whose zone this is. Its step writes only those names,
	// and a name whose live marker names Within is handed over: the
	// marker is rewritten in place, no delete, no create.
	Within string `json:",omitempty"`
	// Handed are the names inside this zone that site.cue grants other
	// tenants on their own (names:), each to its tenant: this zone's
	// step never deletes them, whoever's marker they carry.
	Handed map[string]string `json:",omitempty"`
	Pos    Pos
}

// SOA is what a zone sets of its SOA record: each nil field stays as the
// server has it, and the serial is always the server's.
type SOA struct {
	MName                           string // canonical primary name server, "" to keep
	Mbox                            string // canonical RNAME, "" to keep
	Refresh, Retry, Expire, Minimum *uint32
}

// RRset is all records of one type at one name.
type RRset struct {
	Name string // canonical FQDN
	Type string // upper case, one of rdata.Types (and SOA in a planner's update)
	TTL  uint32
	// Values are the records' contents in canonical presentation form,
	// sorted: "192.0.2.1", "10 mx.example.org.", "\"v=spf1 -all\"",
	// "10 5 443 target.example.org.", "0 issue \"letsencrypt.org\"".
	Values []string
	// Proxied: Cloudflare serves this A, AAAA or CNAME through its proxy
	// (TTL is then 1, Cloudflare's "automatic").
	Proxied bool `json:",omitempty"`
	// Lease, set on the A records of a VM that publishes address
	// "lease", says the value is the address the VM's NIC holds in its
	// network's DHCP leases; Values are then empty until a backend reads
	// the lease (see backends/lease).
	Lease  *LeaseRef `json:",omitempty"`
	Writer Writer
}

// LeaseRef names a NIC whose DHCP lease holds a published address.
type LeaseRef struct {
	Host string // the VM's libvirt URI
	VM   string
	NIC  int // index into the VM's NICs
	// Tenant is the VM's: only a domain marked as that tenant's gives
	// its address (the domain of that name may be another's).
	Tenant string
}

// PublishLease is the Publish.Address that takes the address from the
// DHCP lease of the VM's first NIC.
const PublishLease = "lease"

// Writer is the spec element that produces a record.
type Writer struct {
	Kind    WriterKind
	Tenant  string
	Element string // e.g. zones."sjc.example.net".records.keys or vms.keys.publish
	Pos     Pos
}

// WriterKind tells zone records from other writers.
type WriterKind string

// Writer kinds.
const (
	WriterZoneRecords WriterKind = "zone-records"
	WriterVMPublish   WriterKind = "vm-publish"
)

// Network is a libvirt virtual network.
type Network struct {
	Tenant   string
	Name     string
	HostName string  // the host's name in site.cue
	Host     string  // its libvirt URI, resolved from site.cue
	Mode     NetMode // "" is NetNAT, the schema's default
	// CIDR is the prefix of a NAT or isolated network, "" for a bridge.
	CIDR string
	// Bridge names the existing host bridge of a bridge network.
	Bridge    string `json:",omitempty"`
	Autostart bool
	Pos       Pos
}

// NetMode is how a network reaches beyond its guests.
type NetMode string

// Network modes.
const (
	NetNAT      NetMode = "nat"      // routed out through the host, with NAT
	NetIsolated NetMode = "isolated" // guests and host only, no route out
	NetBridge   NetMode = "bridge"   // an existing host bridge: the host's LAN
)

// ModeOrNAT is the network's mode, NetNAT when none is set.
func (n *Network) ModeOrNAT() NetMode {
	if n.Mode == "" {
		return NetNAT
	}
	return n.Mode
}

// ServesDHCP reports whether libvirt runs a DHCP server (dnsmasq) for
// the network: not on a host bridge, whose addresses are the LAN's.
func (n *Network) ServesDHCP() bool { return n.Mode != NetBridge }

// VM is a libvirt domain.
type VM struct {
	Tenant      string
	Name        string
	HostName    string // the host's name in site.cue
	Host        string // its libvirt URI, resolved from site.cue
	Autostart   bool
	Running     bool
	VCPUs       int
	MemoryBytes uint64
	Disks       []Disk
	// Pools are the pools site.cue declares on the VM's host that its
	// volumes (disks and seed) live in, sorted by name: the VM's step
	// needs theirs. A pool the operator did not declare must exist.
	Pools []*Pool
	// Images are the base images site.cue declares that the VM's disks
	// start from: site uploads each once, before the disks.
	Images    []*Image
	NICs      []NIC
	CloudInit *CloudInit
	Publish   *Publish
	Pos       Pos
}

// Disk is a volume in a libvirt storage pool.
type Disk struct {
	Pool      string
	Name      string
	SizeBytes uint64
	// Base names a volume in the same pool the disk starts from: a qcow2
	// overlay backed by it, or with Clone a full copy. "" is a blank disk.
	Base  string `json:",omitempty"`
	Clone bool   `json:",omitempty"`
	// Pos and BasePos are where the spec names the volume and its base,
	// for the checks between tenants; a plan does not compare them.
	Pos     Pos `json:"-"`
	BasePos Pos `json:"-"`
}

// Image is a base image the operator declares on a host (site.cue
// hosts: NAME: images: VOLUME: {pool, source}): site uploads the file
// Source into the volume Name of Pool when the volume is missing, and
// never replaces it.
type Image struct {
	Pool   *Pool
	Name   string // the volume's name, what a disk's base names
	Source string // absolute path of a raw or qcow2 file where site runs
	Pos    Pos
}

// Pool is a storage pool the operator declares on a host (site.cue
// hosts: NAME: pools: POOL): site defines, builds, starts and
// autostarts it when it is missing, and never redefines one that exists.
type Pool struct {
	HostName string // the host's name in site.cue
	Host     string // its libvirt URI
	Name     string
	Type     string // "dir", the only type site creates
	Path     string // absolute target directory
	Pos      Pos
}

// NIC attaches a VM to a network declared in the same tenant.
type NIC struct {
	Network string
	Address string // optional static IPv4 address
	MAC     string // optional
}

// CloudInit is the NoCloud seed of a VM.
type CloudInit struct {
	UserData      string
	MetaData      string // optional extra meta-data; instance-id is derived
	NetworkConfig string // optional
}

// Publish makes a VM a writer of address records in a zone.
type Publish struct {
	Zone    string   // canonical zone name
	Names   []string // canonical FQDNs
	Address string   // an IP address, or PublishLease
	// PTR is the reverse name whose PTR record (naming Names[0]) the VM
	// writes, "" when it writes none.
	PTR string `json:",omitempty"`
	// PTRZone is the reverse zone PTR is written into.
	PTRZone string `json:",omitempty"`
	Pos     Pos
}

// RRset returns the zone's RRset of type typ at name, nil when it has
// none.
func (z *Zone) RRset(name, typ string) *RRset {
	for _, rs := range z.RRsets {
		if rs.Name == name && rs.Type == typ {
			return rs
		}
	}
	return nil
}

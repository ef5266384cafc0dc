//go:build cgo && libvirt_dlopen

// Package libvirt converges VMs, networks and the storage pools site.cue
// declares on libvirt hosts, and never stops a guest without an
// acknowledged gate (INCIDENTS.md §3).
//
// # What a run does
//
// Every run observes each host it touches, once: every domain's state,
// persistence, autostart, live XML and inactive XML; every network's
// state, autostart, persistent XML and, while it runs, live XML (DHCP
// leases are read when a network is a candidate for destroying); the
// storage pools and volumes the tenant's
// VMs use. Nothing is remembered between runs: there is no state file, and
// autostart is always read back, so a `virsh autostart` done by hand shows
// up as drift.
//
// The wanted domain is built from the model with libvirtxml (never a
// text template); its type is kvm when the host's capabilities offer KVM,
// else qemu (TCG), else whatever the driver offers (the test driver's
// "test"), unless Options.DomainType (SITE_LIBVIRT_DOMAIN_TYPE) says
// kvm or qemu. Wanted, inactive and live definitions are compared field by
// field on the things site manages (type, memory, vCPUs, disks, NICs, the
// seed cdrom, the owner element), never as XML text: live XML carries
// aliases, runtime ports and expanded CPU models.
//
// # Impact of each change
//
//   - live: autostart (SetAutostart); the owner element (SetMetadata,
//     live and config); current memory up to the running maximum when the
//     guest has a balloon, and vCPUs up to the running maximum; starting a
//     shut-off guest. Memory and vCPU changes are asked for live only in
//     the run that writes them to the persistent definition: a guest
//     without a balloon driver never gives memory back, and libvirt cannot
//     unplug the vCPUs a QEMU guest booted with. Whatever the guest did not
//     take is next-boot from then on, so the apply converges instead of
//     failing on every run.
//   - next-boot: everything else. The wanted definition is written with
//     DefineXML on the persistent domain, which libvirt keeps as the next
//     boot's definition and does not apply to the running guest. Until
//     the next shutdown, every diff shows the difference between the live
//     and the inactive definition as pending, whoever caused it; an
//     apply does nothing for those and counts them in
//     StepResult.Waiting, so a step with nothing else is reported
//     pending, not applied. A changed cloud-init seed is a next-boot
//     media change too; its new instance-id makes cloud-init run its
//     first-boot modules again at that boot, and a disk added to an
//     existing domain is attached then: the change's reason says both.
//   - restart: a running guest with pending changes is restarted only
//     when the user asks for it (run.Restart, `site apply --restart
//     TENANT/VM`) and acknowledges GATE-VM-RESTART. `running: false` on a
//     running guest needs GATE-VM-STOP. Renaming a running domain (a VM
//     renamed in the spec) shuts it down first, behind GATE-VM-DESTROY.
//     A restart is a shutdown, a wait of
//     up to Options.ShutdownTimeout, then a forced stop, then a start.
//   - destroy: undefining a domain the tenant no longer declares, or
//     deleting a disk volume it no longer declares, needs GATE-VM-DESTROY.
//     Growing a disk needs GATE-VM-DISK-RESIZE; site never shrinks one.
//     A disk whose base the spec changed is deleted and made again from
//     the new base behind GATE-VM-DISK-REBASE, never under a running
//     guest and never for a volume site did not make.
//
// # Storage
//
// A pool site.cue declares is its own step (storage.Driver): a missing one
// is defined, built, started and autostarted; an existing one is only
// started and autostarted, and one with another type or path blocks its
// step (site never redefines a pool). Only dir pools. While a declared
// pool does not exist yet, the volumes a VM or image step plans in it
// are read from its directory, as libvirt will list them once the pool
// runs, where the daemon runs on this machine (storage, pooldir.go); while it
// exists but does not run, or its directory or a file there cannot be
// read so, whether they exist is unknown, and the plan says so ("read
// after the pool starts", "read after the pool is made") instead of
// claiming a create. Either way the image and VM steps plan again at apply time,
// after the pool's step has made or started the pool, and carry out that
// plan; a gate it needs that the run did not acknowledge stops the step
// before any change (vmstep.Driver.replan, storage.Driver.replanImage).
// A volume a running pool does not list whose path in the pool's
// directory holds a file (put there after libvirt last read the pool,
// one its daemon cannot open, a symbolic link to nothing, a named pipe,
// a socket or a character device) blocks its step, naming the file and
// why, where the daemon runs on this machine (storage, unlisted.go): apply's
// create would fail over it, or write through the link. libvirt 9.0
// does list an overlay whose backing file is missing.
// A disk with a base is a qcow2 overlay on the base volume of its pool
// (StorageVolCreateXML with a backing store), or with clone a copy
// (StorageVolCreateXMLFrom) grown to its size; libvirt runs qemu-img. A
// missing base, or one larger than the disk, blocks the VM's step. A
// base image site.cue declares (images:) is uploaded by a step of its
// own when its volume is missing, and never replaced. A disk's driver
// type is the one a domain's definition gives it (definedFormat), never
// the format libvirt probes from a file a guest writes (a blank disk is
// raw); a volume no domain has attached that reads as an overlay is
// refused for a disk without a base (refuseProbedOverlay). An overlay
// reads a base a domain has attached in that domain's driver type
// (baseFormat), and a copy of a raw disk a domain has attached is
// refused, as libvirt copies in the format it probes when it copies
// (refuseCopyOfRawDisk). Where the
// probe does say (a disk no domain has attached, a base site.cue does
// not declare), only raw, ISO and a qcow2 image whose data is its own
// are taken: a qcow2 external data file or a vmdk descriptor's extents
// would have QEMU, or qemu-img copying a base, read a file the header
// names, and libvirt 9 reports neither (storage, probed.go).
//
// An upload (a base image, a seed) is marked in its pool until it is
// complete, so that one a run did not finish (killed, disconnected, a
// host that crashed) is never taken for the whole image: libvirt has no
// volume rename, so before creating volume NAME site creates an empty
// volume ".NAME.uploading" beside it, and deletes that marker only once
// the last byte was sent and the stream finished. A volume with a
// marker beside it reads as missing (storage.Volume.Partial), and the plan
// uploads it (storage, upload.go). Two applies can upload one volume at once
// (locks are per tenant, and two tenants' VMs may start from one
// image), so the marker is the upload's lock too (storage, marker.go): it
// names its run, and grows by a byte every 5 s while the upload goes
// on. A run that finds one waits while it grows and is done when the
// other run's upload is; it deletes the partial volume and uploads
// anew only when the marker is proved stale (its run ran on this
// machine and its process is gone, or the marker has not grown for
// 15 s), under a marker of the next generation (".NAME.uploading.1"),
// which only one run can create. A run paused past that finds its
// marker taken and deletes nothing. A long upload says how far it got
// every few seconds (Run.Say), and the run's first interrupt stops it
// between two chunks and deletes the partial volume and its marker.
// A seed's marker names the VM's tenant too: a seed upload that did not
// finish and whose seed no VM of the tenant on the host names any more
// (its cloud-init changed) is removed, without a gate, by the plan of
// the tenant's first VM that uses the pool, under the same rules of
// staleness (vmstep, uploadleft.go).
//
// site never undefines a domain to update it.
//
// # Ownership
//
// What site wrote carries an owner element in the domain's or network's
// <metadata>, in the XML namespace OwnerNS:
//
//	<site:owner xmlns:site="https://github.com/site-tools/site/xmlns/libvirt/1" tenant="sjc">
//	  <site:volume pool="default" name="keys-root" role="disk" base="debian-12.qcow2"/>
//	  <site:volume pool="default" name="seed-5acbdc9c8d299ef2.iso" role="seed"/>
//	</site:owner>
//
// The volumes listed there are the ones site created for the domain,
// with the base a disk was made from; they are the only volumes site ever
// deletes. Apply writes the element (DefineXML, SetMetadata) before it
// makes the volumes it lists, so a run killed in between leaves a listed
// volume missing, which the next run makes, and never a made one that no
// domain claims. A create the daemon refuses made nothing: the volume
// appeared after the plan, or its file is in the pool's directory
// unlisted, or the build failed. Before the step returns that error it
// takes the volume out of the owner element (live and persistent) and
// the disk on it out of the definition (vmstep, volclaim.go), so a removal of
// the VM never deletes it, and the next run does not take it for a
// disk the VM has attached already. A domain or network of the same
// name without our owner element, or owned by another tenant, is foreign:
// site refuses to plan it and says how to adopt it.
//
// A VM names its volumes by pool and name, and vet knows only the
// volumes the specs declare. So a VM's step is refused when it would
// attach a volume it does not have attached yet, or make a disk from a
// base, that a domain of another tenant or one without an owner element
// has as a disk in its live or persistent definition (by pool and
// volume, or by the volume's file path): that is the other domain's
// data (vmstep, voluse.go). The host's observation has every definition, so the
// check makes no libvirt call, and a VM whose disks are attached to it
// already does not run it. A base no domain attaches (an image) is
// every tenant's; a disk's backing chain does not attach its base.
// Each tenant's apply holds its own lock, so another tenant's apply may
// attach such a volume between this run's plan and its define: the
// define reads the host's domains again right before it acts and right
// after, and takes a define that lost back (applier.defineGuarded).
//
// Resources a tenant no longer declares are found without a state file:
// for a tenant with a VM step on a host, Driver.Discover lists the
// domains there marked with its name that it does not declare, and each
// becomes a step of its own (graph.UndeclaredVM, ID vm/URI/NAME, as the
// step that made it; vm/URI/NAME@TENANT where another tenant's spec in
// the run declares that name, see graph.With), whose plan undefines it and deletes the volumes its
// owner element lists (but not those the spec names as a VM's disk or
// base), behind GATE-VM-DESTROY. A VM renamed in the spec (vmstep, rename.go) is
// not a removal: the new VM's step renames the domain (virDomainRename)
// that is the one dropped domain with a disk the new VM names, when the
// new VM is the one VM naming its disks, so the owner element, and what
// site made, go with it; a running one is shut down for it behind
// GATE-VM-DESTROY, and the dropped domain's own step plans nothing. Any
// other new VM is refused while a dropped domain still has one of its
// disks. Networks a tenant no longer declares are removed likewise, for
// a tenant with a network step there (network/URI/NAME, GATE-NET-DESTROY).
// A tenant that declares nothing on a host any more is not looked at
// there: its leftovers stay untouched (deleting needs a spec that still
// names the host).
//
// Destroying a network that still has attached interfaces (in any live
// or inactive domain definition on the host) or DHCP leases is refused;
// an active network whose leases the driver cannot report is refused too
// (not knowing is not wanting). A refusal is a plan line of impact
// refused ("refused for now: in use: 1 DHCP lease (…); what frees it"),
// which apply does not make and reports as refused, not an error: an
// error would block the very VM change that frees the network. An empty network needs GATE-NET-DESTROY.
//
// A network is NAT (forward mode nat), isolated (no forward element: a
// bridge, gateway and dnsmasq of libvirt's, no route out) or bridged
// (forward mode bridge onto an existing host bridge: no address, no
// dnsmasq; site neither makes nor removes the host bridge, and plans
// nothing for a network whose host bridge is missing, which libvirt
// would start anyway and fail only the guests on). A network whose
// address range overlaps another network on the host that is not its
// tenant's own (libvirt's default, the operator's, another tenant's) is
// refused at plan time (netstep, checkOverlap), and again right
// before and after its define, for a network another tenant's apply
// defined meanwhile (netstep, recheckOverlap); the host's routes
// that are not libvirt networks are not read. No routed or
// open mode. libvirt cannot change an active network's mode, and a new
// definition alone would switch it at the next restart, unannounced: a
// mode change of an active network stops it, defines it anew and starts
// it, behind GATE-NET-DESTROY, and is refused like a destroy while the
// network is in use. libvirt shows a running guest's interface on a
// bridged network as the host bridge (type='bridge'); observe reads it
// back as the network (hosts, namesBridgedNICs). Network tests run on a root
// system libvirtd of their own (libvirttest.StartSystem): bridge,
// gateway address, dnsmasq and iptables rules are checked on the host,
// the refusals against a running QEMU guest's tap on the bridge and a
// real DHCP lease taken by a client on it, and a bridged network against
// a host bridge the test makes.
//
// # Cloud-init seeds
//
// A VM's cloudinit becomes a NoCloud ISO built in memory by package seed,
// named seed-<hash>.iso after its inputs, uploaded with StorageVolUpload
// into the pool of the VM's first disk (or the pool named "default")
// and attached as a read-only cdrom with startupPolicy="optional", so a
// missing seed never blocks a boot. The cdrom sits on a virtio-scsi
// controller: Debian's cloud kernel has no AHCI driver and would never
// see it on SATA. Nothing is written under /tmp. Changed
// inputs make a new volume and a next-boot media change; the volume a
// running guest has open is never replaced or deleted; seed volumes in a
// domain's owner element that no live or inactive definition references
// any more are deleted.
//
// # Hosts and connections
//
// A spec's host is a libvirt URI ("qemu:///system", "qemu:///session",
// "test:///default"). The environment variable SITE_LIBVIRT_URI_MAP
// rewrites them before connecting, so a spec can be pointed at a private
// daemon without editing it:
//
//	SITE_LIBVIRT_URI_MAP='qemu:///session=qemu+unix:///session?socket=/srv/lv/run/libvirt/libvirt-sock'
//
// Entries are separated by spaces or commas; each maps the URI written in
// the spec to the URI to open. Step IDs and plan keys keep the spec's URI.
// NewFromEnv reads it (and SITE_LIBVIRT_SHUTDOWN_TIMEOUT) through the
// run's Run.Getenv when site builds the Driver for a run. A Driver serves
// one run: it opens one connection per host, observes each host once,
// and keeps the connections until Close, which site calls at the run's
// end.
//
// A libvirt call has no timeout and nothing cancels it, so every call
// to a host's daemon is named to the run while it waits (Options.Run,
// backends.Run.Await), with what it acts on: connecting and observing
// ("ListAllDomains"), and each change apply makes ("DomainDefineXML
// web", "StorageVolCreateXML default/web-root", "Create of network
// lan"). A daemon that is slow to answer is named, with the call, by
// diff and apply and by the first Ctrl-C. What site waits for itself,
// a guest shutting down before a restart or taking its DHCP lease, is
// not a call: only the calls that poll it are named.
//
// A daemon that stopped answering altogether is given up on (see
// package conn): libvirt's keepalive (Options.KeepAlive, by default a
// probe after 5 s of silence and two more 5 s apart) closes a
// connection whose daemon said nothing for 20 s, failing the calls in
// flight, and an open that has not finished within Options.OpenTimeout
// (30 s) is left behind unused. Either way the host is given up on for
// the rest of the run with a SilentHostError, which every later step
// on it returns at once. Keepalive bounds the daemon's silence, not a
// call's length: a live daemon answers the probes during a long upload
// or a slow call.
//
// # Library
//
// The binding is built with the libvirt_dlopen tag: libvirt.so.0 (Debian
// package libvirt0) is loaded at run time, and Available says why when it
// cannot be.
//
// # Absent
//
// Hot-plugging disks or NICs into a running guest is not done: such
// changes are next-boot. User cdroms and their live media changes are not
// in the model. Pools of other types than dir are not built.
//
// # Errors and retries
//
// Every libvirt error a step returns is classified (Classify) as one of
// the four classes every backend uses, and reported as a HostError:
// the step's context, libvirt's own message (not the binding's
// virError(Code=…) form), the class and what to do.
//
//   - transient: the daemon unreachable or the connection lost (no
//     connection, RPC errors, OS errors on the connection such as
//     "Cannot recv data"), or a timeout (operation timeout, guest agent
//     not responding).
//   - auth: authentication failed, cancelled or unavailable; access
//     denied.
//   - conflict: the object's state refuses the call (operation invalid,
//     "already exists", "already active"), or the domain, network or
//     volume exists.
//   - invalid: bad XML or arguments, unsupported configuration or call,
//     and every code not named above.
//
// Only transient errors are retried, at most three tries, the wait
// doubling from 250 ms with up to half of it random jitter; before each
// retry the connection is checked and reopened when it died. Only calls
// that are safe to repeat are retried: observing a host (as a whole),
// and the ensure calls DefineXML of the same XML, SetAutostart to a
// value and SetMetadata (domains), NetworkDefineXML and SetAutostart
// (networks). Starting, stopping, undefining, creating, resizing,
// deleting and uploading volumes, live memory and vCPU changes and DHCP
// host updates are tried once: a start that failed on the wire may have
// started the guest. Such a failure fails the step, and the next run
// re-observes and converges. Every try's libvirt calls are counted in
// Driver.Lease reads the DHCP lease of a VM's NIC (by the MAC of the
// running domain) for the DNS records a VM publishes with address
// "lease" (package backends/lease).
//
// Calls. Volume and DHCP lease lookups made while planning, after the
// host's observation, are not retried.
//
// # Fixed addresses
//
// A NIC's address becomes a DHCP host entry (MAC, IP, VM name) on its
// network, written by the network's step. The MAC is the declared one,
// else one derived from tenant, VM and NIC position (52:54:00:…), written
// into the domain too. Host entries change live on an active network
// (virNetworkUpdate, live and config) while it serves the range the spec
// wants; everything else about a network but its mode is next-boot
// (written with NetworkDefineXML, used when the network is next
// started), since site never restarts a network unasked. Until then
// every run compares the running network's definition too and shows
// what it lacks as pending ("already in the persistent definition"), so
// site diff --detailed-exitcode exits 2, as for a guest. While a running
// network serves another range (a new cidr), its host entries are left
// as they are and the new ones go to the persistent definition only: an
// entry outside the range a network serves is wrong there.
// A bridged network has no fixed addresses: libvirt serves no DHCP there,
// and site vet refuses an address on it.
//
// # Packages
//
// This package is the Driver the engine calls: it opens the run's
// hosts, discovers what a tenant dropped, lists what site owns and what
// uploads left, and hands each step to the package of its kind. Below
// it: vmstep (the VM steps' planner and applier: definitions, power,
// renames, disks and seeds), netstep (the network steps'), storage (the
// storage steps, and a host's pools and volumes as every step reads and
// writes them, uploads under their markers), hosts (the run's
// connections, call counts, retries and each host's observed domains
// and networks, which every kind shares), conn (opening with a time
// limit, keepalive, hosts given up on, libvirt's errors as the user
// sees them), ownership (site's owner element), domain (a domain's
// definition and shape), network (a network's definition, DHCP hosts
// and MACs), qcow2 (the header reader), uploadmark (the names and notes
// of upload markers) and seed (cloud-init seed ISOs).
package libvirt

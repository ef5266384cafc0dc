//go:build cgo && libvirt_dlopen

package libvirt

import (
	"sync"

	"github.com/site-tools/site/backends/libvirt/hosts"
)

// hostObs is one run's observation of one host (hosts.Obs), with the
// pools and volumes looked up by name when a step needs them and
// remembered.
type hostObs struct {
	*hosts.Obs
	d *Driver

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
type domObs = hosts.Domain

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

func newVolCache() *volCache {
	return &volCache{vols: map[string]*volObs{}, pools: map[string]error{}}
}

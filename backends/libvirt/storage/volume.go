//go:build cgo && libvirt_dlopen

package storage

// Volume is what was seen of one volume.
type Volume struct {
	Exists   bool
	Capacity uint64
	Format   string // the volume's format (raw, qcow2, …); "raw" when unknown
	Path     string // its file on the host
	// Backing is the path of the volume's backing store (the base image
	// of a qcow2 overlay), "" when it has none.
	Backing string
	// NoPool says why the pool cannot be read yet (PoolMissing,
	// PoolInactive): a declared pool's step makes and starts it, and the
	// steps of the volumes in it plan them again at apply time, once
	// they can be read. "" when it was read.
	NoPool string
	// Unknown, for a volume of a declared pool that does not exist
	// yet, says why site could not read its file in the pool's
	// directory as libvirt will once the pool runs (pooldir.go); "" when
	// it could, or the pool exists.
	Unknown string
	// Partial: the volume is there, but an upload into it has not
	// finished (a marker is beside it, see marker.go): another run
	// uploads it now, or one that did not finish left it. It reads as
	// missing (Exists false), and its step uploads it, or waits for the
	// run that does. Markers names the markers. Only View.Uploaded
	// sets them.
	Partial bool
	Markers []string
}

// Why a declared pool's volumes cannot be read yet.
const (
	// PoolMissing: the pool does not exist, so libvirt knows none of its
	// volumes; they are planned as missing.
	PoolMissing = "does not exist yet"
	// PoolInactive: the pool exists but does not run, so libvirt cannot
	// list its volumes, though their files are in its directory: whether
	// one exists is unknown until the pool starts, and the plan says so
	// rather than claim to create it.
	PoolInactive = "is not active"
)

// Unread reports whether v is in a pool that exists but does not run,
// or in one that does not exist yet whose directory site could not read,
// so whether v exists is unknown.
func (v *Volume) Unread() bool { return v.NoPool == PoolInactive || v.Unknown != "" }

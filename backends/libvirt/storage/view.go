//go:build cgo && libvirt_dlopen

package storage

import (
	"sync"

	"github.com/site-tools/site/backends/libvirt/hosts"
)

// View is one run's observation of one host (hosts.Obs), with the pools
// and volumes looked up by name when a step needs them and remembered.
type View struct {
	*hosts.Obs
	// The volumes read while planning, shared by every view of the
	// host (a renamed one too): kept beside the observation.
	*cache
}

// Of is the view of o's storage, read once per run for every step on
// its host.
func Of(o *hosts.Obs) *View {
	return &View{Obs: o, cache: hosts.Kept(o, "storage", newCache)}
}

func newCache() *cache {
	return &cache{vols: map[string]*Volume{}, pools: map[string]error{}}
}

// cache holds what a host's plans read of its storage, once per run;
// its lock is held while it is read or filled.
type cache struct {
	sync.Mutex
	vols  map[string]*Volume  // by pool "\x00" name
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

//go:build cgo && libvirt_dlopen

// Package uploadmark names, writes and reads the marker volumes an
// upload leaves beside the volume it fills; package libvirt takes,
// beats and deletes them.
//
// An upload's marker is also its lock. Two applies can upload the same
// volume at once: locks are per tenant, and two tenants' VMs may start
// from one base image of site.cue (or, with the lock file that protects
// one checkout only, one tenant may be applied from two machines). So
// a marker names the run that made it (Note), and that run
// proves it is alive by growing the marker by one byte every Beat
// (StorageVolResize: no stream, no pool refresh). Creating a volume is
// atomic in libvirt (a second create of a name fails), so only one run
// holds a marker.
//
// A run that finds a marker waits while it grows, and takes the upload
// as done when the marker goes and the volume is there. It takes a
// marker for stale only when that is proved: the run that wrote it ran
// on this machine's kernel, in this PID namespace, and its process is
// gone; or the marker has not grown for StaleAfter (a run elsewhere
// that was killed, or a host that crashed). It then takes the upload
// over by creating the next generation's marker (".NAME.uploading.1",
// ".2", …): of two runs that found one stale marker, only one creates
// the next, and the other waits for it. Only the run holding the newest
// marker deletes the volume and the older markers. A run that was only
// paused past StaleAfter finds its marker gone or outgrown and stops
// without deleting anything: its volume is the new holder's now.
package uploadmark

//go:build cgo && libvirt_dlopen

package libvirt

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends/libvirt/conn"
)

// An upload's marker is also its lock. Two applies can upload the same
// volume at once: locks are per tenant, and two tenants' VMs may start
// from one base image of site.cue (or, with the lock file that protects
// one checkout only, one tenant may be applied from two machines). So
// a marker names the run that made it (markerNote), and that run
// proves it is alive by growing the marker by one byte every uploadBeat
// (StorageVolResize: no stream, no pool refresh). Creating a volume is
// atomic in libvirt (a second create of a name fails), so only one run
// holds a marker.
//
// A run that finds a marker waits while it grows, and takes the upload
// as done when the marker goes and the volume is there. It takes a
// marker for stale only when that is proved: the run that wrote it ran
// on this machine's kernel, in this PID namespace, and its process is
// gone; or the marker has not grown for staleAfter (a run elsewhere
// that was killed, or a host that crashed). It then takes the upload
// over by creating the next generation's marker (".NAME.uploading.1",
// ".2", …): of two runs that found one stale marker, only one creates
// the next, and the other waits for it. Only the run holding the newest
// marker deletes the volume and the older markers. A run that was only
// paused past staleAfter finds its marker gone or outgrown and stops
// without deleting anything: its volume is the new holder's now.

// uploadBeat is how often a run that uploads grows its marker; a marker
// that did not grow for staleAfter (three beats) is stale. Tests
// shorten it.
var uploadBeat = 5 * time.Second

func staleAfter() time.Duration { return 3 * uploadBeat }

// noteSize is the size of a marker's note, and its capacity before the
// first beat.
const noteSize = 512

// markerGenDigits is room left for a generation suffix (".1234567")
// within a file name's 255 bytes.
const markerGenDigits = 8

// uploadingName is the first marker volume of an upload into name. A
// name too long to carry the marker's dot, suffix and a generation
// within 255 bytes gets a marker named by its hash.
func uploadingName(name string) string {
	if n := "." + name + ".uploading"; len(n) <= 255-markerGenDigits {
		return n
	}
	sum := sha256.Sum256([]byte(name))
	return ".uploading-" + hex.EncodeToString(sum[:16])
}

// markerName is the marker of generation gen of an upload into name.
func markerName(name string, gen int) string {
	if gen == 0 {
		return uploadingName(name)
	}
	return uploadingName(name) + "." + strconv.Itoa(gen)
}

// marker is one marker volume of an upload.
type marker struct {
	Name string
	Gen  int
}

// markersIn picks the markers of an upload into name out of a pool's
// volume names, oldest generation first.
func markersIn(vols []string, name string) []marker {
	base := uploadingName(name)
	var out []marker
	for _, v := range vols {
		switch {
		case v == base:
			out = append(out, marker{v, 0})
		case strings.HasPrefix(v, base+"."):
			if g, err := strconv.Atoi(v[len(base)+1:]); err == nil && g > 0 && strconv.Itoa(g) == v[len(base)+1:] {
				out = append(out, marker{v, g})
			}
		}
	}
	slices.SortFunc(out, func(a, b marker) int { return a.Gen - b.Gen })
	return out
}

// markerNote is what a marker says of the run that made it.
type markerNote struct {
	Machine string // os.Hostname, for people
	PID     int
	Boot    string // /proc/sys/kernel/random/boot_id
	PIDNS   string // the /proc/self/ns/pid link
	Since   string // when the upload began, RFC 3339
	// Tenant is the tenant whose VM the upload is a seed of, "" for a
	// base image (site.cue's) and in a marker an older site made: a
	// later run of that tenant removes what the upload left once no VM
	// names the seed any more (uploadleft.go).
	Tenant string
	// Site: the note begins as site writes it ("site upload"), which
	// proves site made the marker (site leftovers reports no other).
	Site bool
}

// thisRun is the note of this process's uploads.
var thisRun = func() markerNote {
	n := markerNote{PID: os.Getpid()}
	n.Machine, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		n.Boot = strings.TrimSpace(string(b))
	}
	n.PIDNS, _ = os.Readlink("/proc/self/ns/pid")
	if n.Boot == "" {
		// No proof of where it ran: others judge its marker by its beat.
		var r [8]byte
		_, _ = rand.Read(r[:])
		n.Boot = "unknown-" + hex.EncodeToString(r[:])
	}
	return n
}()

// noteHeader is how every note site writes begins.
const noteHeader = "site upload\n"

func (n markerNote) bytes() []byte {
	s := fmt.Sprintf(noteHeader+"machine %s\npid %d\nboot %s\npidns %s\nsince %s\n", n.Machine, n.PID, n.Boot, n.PIDNS, n.Since)
	if n.Tenant != "" {
		s += "tenant " + n.Tenant + "\n"
	}
	b := make([]byte, noteSize)
	copy(b, s)
	return b
}

func parseNote(b []byte) markerNote {
	var n markerNote
	n.Site = bytes.HasPrefix(b, []byte(noteHeader))
	for _, l := range strings.Split(string(bytes.TrimRight(b, "\x00")), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "machine":
			n.Machine = v
		case "pid":
			n.PID, _ = strconv.Atoi(v)
		case "boot":
			n.Boot = v
		case "pidns":
			n.PIDNS = v
		case "since":
			n.Since = v
		case "tenant":
			n.Tenant = v
		}
	}
	return n
}

// who names the run for a person.
func (n markerNote) who() string {
	if n.PID == 0 {
		return "another site run"
	}
	s := fmt.Sprintf("another site run (pid %d on %s", n.PID, n.Machine)
	if n.Since != "" {
		s += ", since " + n.Since
	}
	return s + ")"
}

// gone reports whether the note proves its run is over: it ran on this
// kernel since its boot, in this PID namespace, and no process has its
// PID. A PID used again by another process reads as alive, and the
// marker is judged by its beat.
func (n markerNote) gone() bool {
	if n.PID <= 0 || n.Boot != thisRun.Boot || n.PIDNS == "" || n.PIDNS != thisRun.PIDNS {
		return false
	}
	return errors.Is(syscall.Kill(n.PID, 0), syscall.ESRCH)
}

// markers lists the markers of an upload into name in pool p, as the
// daemon has them now.
func (a *applier) markers(p *libvirt.StoragePool, pool, name string) ([]marker, error) {
	done := a.calling("ListStorageVolumes " + pool)
	vols, err := p.ListStorageVolumes()
	done()
	if err != nil {
		return nil, fmt.Errorf("list the volumes of pool %s on %s: %w", pool, a.host, err)
	}
	return markersIn(vols, name), nil
}

// lookupVol looks up pool/name: nil without error when it is not there.
func (a *applier) lookupVol(p *libvirt.StoragePool, pool, name string) (*libvirt.StorageVol, error) {
	done := a.calling("LookupStorageVolByName " + pool + "/" + name)
	v, err := p.LookupStorageVolByName(name)
	done()
	switch {
	case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look up volume %s/%s on %s: %w", pool, name, a.host, err)
	}
	return v, nil
}

// createMarker creates marker m in pool p with this run's note: nil
// without error when another run created it first.
func (a *applier) createMarker(p *libvirt.StoragePool, pool string, m marker, what string) (*libvirt.StorageVol, error) {
	def := libvirtxml.StorageVolume{Name: m.Name, Capacity: &libvirtxml.StorageVolumeSize{Value: noteSize, Unit: "bytes"},
		Target: &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: "raw"}}}
	x, err := def.Marshal()
	if err != nil {
		return nil, fmt.Errorf("volume %s: %w", m.Name, err)
	}
	done := a.calling("StorageVolCreateXML " + pool + "/" + m.Name)
	vol, err := p.StorageVolCreateXML(x, 0)
	done()
	if conn.IsCode(err, libvirt.ERR_STORAGE_VOL_EXIST) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create volume %s/%s on %s, which marks the upload of %s until it is complete: %w", pool, m.Name, a.host, what, err)
	}
	note := thisRun
	note.Since = time.Now().UTC().Format(time.RFC3339)
	note.Tenant = a.tenant
	if err := a.upload(vol, pool+"/"+m.Name, bytes.NewReader(note.bytes()), noteSize, nil); err != nil {
		// Unnamed, it is judged by its beat, which the upload's beat
		// gives it from now on.
		a.run.Say(fmt.Sprintf("could not write which run uploads %s into its marker %s/%s (%v): other runs wait %s for it to grow before taking it for stale", what, pool, m.Name, err, staleAfter()))
	}
	return vol, nil
}

// readNote reads a marker's note and its size (its beat).
func (a *applier) readNote(vol *libvirt.StorageVol, what string) (markerNote, uint64, error) {
	return readNote(a.c, vol, what, a.calling)
}

// readNote reads the note and size of marker vol ("pool/name" in
// what) over connection c; calling counts and names each call (see
// Driver.calling).
func readNote(c *libvirt.Connect, vol *libvirt.StorageVol, what string, calling func(call string) (done func())) (markerNote, uint64, error) {
	done := calling("GetInfo of volume " + what)
	info, err := vol.GetInfo()
	done()
	if err != nil {
		return markerNote{}, 0, err
	}
	done = calling("NewStream for " + what)
	st, err := c.NewStream(0)
	done()
	if err != nil {
		return markerNote{}, 0, err
	}
	defer st.Free()
	done = calling("StorageVolDownload " + what)
	err = vol.Download(st, 0, noteSize, 0)
	done()
	if err != nil {
		_ = st.Abort()
		return markerNote{}, 0, err
	}
	var b []byte
	buf := make([]byte, noteSize)
	for len(b) < noteSize {
		n, err := st.Recv(buf)
		if err != nil {
			_ = st.Abort()
			return markerNote{}, 0, err
		}
		if n == 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	_ = st.Finish()
	return parseNote(b), info.Capacity, nil
}

// markerState is what waiting on another run's marker ended with.
type markerState int

const (
	markerGone  markerState = iota // deleted: its upload finished, or failed and cleaned up
	markerStale                    // its run is proved gone, or it stopped growing
)

// waitMarker waits while marker m of the upload into what ("pool/name")
// grows, and says what it waits for. It returns once m is gone or
// stale, or with an error at the run's first interrupt.
func (a *applier) waitMarker(p *libvirt.StoragePool, pool string, m marker, what string) (markerState, string, error) {
	vol, err := a.lookupVol(p, pool, m.Name)
	if err != nil || vol == nil {
		return markerGone, "", err
	}
	defer vol.Free()
	where := pool + "/" + m.Name
	note, size, err := a.readNote(vol, where)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL) {
		return markerGone, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("read the marker %s on %s of an upload into %s: %w", where, a.host, what, err)
	}
	if note.gone() {
		return markerStale, fmt.Sprintf("%s left it unfinished: that process is gone", note.who()), nil
	}
	a.run.Say(fmt.Sprintf("%s is uploading %s to %s (its marker %s is there); waiting for it to finish, or for the marker to stop growing for %s", note.who(), what, a.d.server(a.host), m.Name, staleAfter()))
	grew := time.Now()
	poll := time.NewTicker(uploadBeat / 5)
	defer poll.Stop()
	for {
		<-poll.C
		if a.run.Interrupted() {
			return 0, "", fmt.Errorf("stopped waiting for %s to upload %s: %w", note.who(), what, errUploadInterrupted)
		}
		done := a.calling("GetInfo of volume " + where)
		info, err := vol.GetInfo()
		done()
		switch {
		case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
			return markerGone, "", nil
		case err != nil:
			return 0, "", fmt.Errorf("read the marker %s on %s of an upload into %s: %w", where, a.host, what, err)
		case info.Capacity != size:
			size, grew = info.Capacity, time.Now()
		case time.Since(grew) >= staleAfter():
			return markerStale, fmt.Sprintf("%s left it unfinished: its marker has not grown for %s", note.who(), staleAfter()), nil
		}
	}
}

// beat grows marker mark every uploadBeat until stop is called, so that
// other runs see the upload is alive; lost says the marker was gone at
// a beat (another run took the upload over while this one was paused).
func (a *applier) beat(mark *libvirt.StorageVol) (lost func() bool, stop func()) {
	quit, over := make(chan struct{}), make(chan struct{})
	var gone atomic.Bool
	go func() {
		defer close(over)
		t := time.NewTicker(uploadBeat)
		defer t.Stop()
		// libvirt refuses a capacity below the volume's allocation, a
		// whole block of the file system (4 KiB for the 512-byte
		// note), so the marker grows from the larger of the two and
		// from the allocation again should a beat be refused.
		size := uint64(noteSize)
		// The beat's calls are the marker's upkeep, as renewals are the
		// apply lock's, and are not counted among the step's requests:
		// their number depends on how long the upload takes, so the
		// report would say a different count for the same work.
		from := func() {
			if info, err := mark.GetInfo(); err == nil {
				size = max(size, info.Capacity, info.Allocation)
			}
		}
		from()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			size++
			err := mark.Resize(size, 0)
			switch {
			case conn.IsCode(err, libvirt.ERR_NO_STORAGE_VOL):
				gone.Store(true)
				return
			case err != nil:
				from()
			}
		}
	}()
	var once sync.Once
	return gone.Load, func() { once.Do(func() { close(quit); <-over }) }
}

//go:build cgo && libvirt_dlopen

package uploadmark

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"libvirt.org/go/libvirt"
)

// Note is what a marker says of the run that made it.
type Note struct {
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

// ThisRun is the note of this process's uploads.
var ThisRun = func() Note {
	n := Note{PID: os.Getpid()}
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

// NoteHeader is how every note site writes begins.
const NoteHeader = "site upload\n"

// Bytes is the note as a marker holds it: NoteSize bytes, NUL-padded.
func (n Note) Bytes() []byte {
	s := fmt.Sprintf(NoteHeader+"machine %s\npid %d\nboot %s\npidns %s\nsince %s\n", n.Machine, n.PID, n.Boot, n.PIDNS, n.Since)
	if n.Tenant != "" {
		s += "tenant " + n.Tenant + "\n"
	}
	b := make([]byte, NoteSize)
	copy(b, s)
	return b
}

// ParseNote reads a note back; Site says whether site wrote it.
func ParseNote(b []byte) Note {
	var n Note
	n.Site = bytes.HasPrefix(b, []byte(NoteHeader))
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
func (n Note) Who() string {
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
func (n Note) Gone() bool {
	if n.PID <= 0 || n.Boot != ThisRun.Boot || n.PIDNS == "" || n.PIDNS != ThisRun.PIDNS {
		return false
	}
	return errors.Is(syscall.Kill(n.PID, 0), syscall.ESRCH)
}

// ReadNote reads the note and size of marker vol ("pool/name" in
// what) over connection c; calling counts and names each call (see
// Driver.calling).
func ReadNote(c *libvirt.Connect, vol *libvirt.StorageVol, what string, calling func(call string) (done func())) (Note, uint64, error) {
	done := calling("GetInfo of volume " + what)
	info, err := vol.GetInfo()
	done()
	if err != nil {
		return Note{}, 0, err
	}
	done = calling("NewStream for " + what)
	st, err := c.NewStream(0)
	done()
	if err != nil {
		return Note{}, 0, err
	}
	defer st.Free()
	done = calling("StorageVolDownload " + what)
	err = vol.Download(st, 0, NoteSize, 0)
	done()
	if err != nil {
		_ = st.Abort()
		return Note{}, 0, err
	}
	var b []byte
	buf := make([]byte, NoteSize)
	for len(b) < NoteSize {
		n, err := st.Recv(buf)
		if err != nil {
			_ = st.Abort()
			return Note{}, 0, err
		}
		if n == 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	_ = st.Finish()
	return ParseNote(b), info.Capacity, nil
}

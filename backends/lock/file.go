package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/site-tools/site/compiler/hostilefile"
)

// File is a tenant's lock file in the operator's lock directory (see
// Dir): created with O_EXCL (so of two runs exactly one creates it),
// holding the holder as JSON. It protects runs that share the file
// system; runs from two machines need a shared store (a Vault or
// PowerDNS metadata, site.cue's locks).
//
// Whatever is at Path is read as hostile: opened without following a
// symbolic link, taken only when it is a regular file, read up to
// maxLockFile bytes, and its holder's ID must be one site writes (see
// ValidID). No path is ever built from what the file says: moving a
// dead holder's file aside names it after the new holder's own ID.
type File struct {
	Path string
	Now  func() time.Time // time.Now when nil
}

// maxLockFile bounds what is read of a lock file: a holder is a few
// hundred bytes, and a file that is a symbolic link to /dev/zero, or
// simply huge, must not be read into memory.
const maxLockFile = 4096

// Where implements Store.
func (f File) Where() string { return "file " + f.Path }

func (f File) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// Try implements Store: create the file, or read who has it; a holder
// whose lease has run out is moved aside and the file created again.
func (f File) Try(ctx context.Context, h Holder) (*Holder, error) {
	if !ValidID(h.ID) {
		return nil, fmt.Errorf("%s: holder id %q is not one site makes", f.Where(), h.ID)
	}
	h.State = Held
	for range 3 {
		err := f.create(h)
		if err == nil {
			return nil, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		cur, err := f.read()
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		}
		if err != nil {
			return nil, err
		}
		if cur.Live(f.now()) {
			return cur, nil
		}
		took, err := f.takeOver(cur, h)
		if err != nil {
			return nil, err
		}
		if took {
			ReportTakeover(ctx, *cur)
		}
	}
	return nil, fmt.Errorf("%s: other runs keep taking it over; run again", f.Where())
}

// takeOver moves a dead holder's file aside, under a name made of the
// new holder's own ID (never of anything the file says), and says
// whether it was the dead holder's; when another run renewed or
// replaced it in the meantime, that file is put back.
func (f File) takeOver(dead *Holder, h Holder) (bool, error) {
	aside := f.Path + ".expired-" + h.ID
	if err := os.Rename(f.Path, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("%s: taking over the expired lock of %s: %w", f.Where(), dead, err)
	}
	moved, err := readHolder(aside)
	if err == nil && (moved.ID != dead.ID || moved.Live(f.now())) {
		// Not the dead holder any more: give it back (Link fails, and
		// leaves it aside for the operator, if a new file is there).
		if err := os.Link(aside, f.Path); err != nil {
			return false, fmt.Errorf("%s: moved a live lock aside to %s while taking over an expired one and could not put it back (%v); move it back by hand", f.Where(), aside, err)
		}
		return false, os.Remove(aside)
	}
	return true, os.Remove(aside)
}

func (f File) create(h Holder) error { return writeNew(f.Path, h) }

// writeNew writes h to a file at path that does not exist yet (O_EXCL
// never follows a symbolic link there either).
func writeNew(path string, h Holder) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	if _, err := file.Write(append(b, '\n')); err != nil {
		file.Close()
		os.Remove(path)
		return err
	}
	return file.Close()
}

func (f File) read() (*Holder, error) { return readHolder(f.Path) }

// readHolder reads the holder in the lock file at path. Its errors
// never quote the file's bytes: they may be anything a symbolic link
// points at.
func readHolder(path string) (*Holder, error) {
	notLock := func(why string) error {
		return fmt.Errorf("lock file %s is not a site lock (%s): if no site apply runs, remove it", path, why)
	}
	b, err := hostilefile.Read(path, maxLockFile)
	if hostilefile.Refused(err) {
		return nil, notLock(err.Error())
	}
	if err != nil {
		return nil, err
	}
	var h Holder
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, notLock("not the JSON of a holder")
	}
	if !ValidID(h.ID) {
		return nil, notLock("its id is not one site makes")
	}
	return &h, nil
}

// Renew implements Store: rewrite the file (a new file renamed over it),
// unless another run has taken it over.
func (f File) Renew(ctx context.Context, h Holder) error {
	cur, err := f.read()
	if err != nil {
		return err
	}
	if cur.ID != h.ID {
		return fmt.Errorf("the lock was taken over by %s after this run's lease ran out", cur)
	}
	h.State = Held
	tmp := f.Path + ".renew-" + h.ID // h is this run's: its ID is one site made
	_ = os.Remove(tmp)               // left by a renewal cut short
	if err := writeNew(tmp, h); err != nil {
		return err
	}
	return os.Rename(tmp, f.Path)
}

// Release implements Store: remove the file if it is still h's.
func (f File) Release(ctx context.Context, h Holder) error {
	cur, err := f.read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.ID != h.ID {
		return nil // taken over after our lease ran out: not ours to remove
	}
	return os.Remove(f.Path)
}

// Holders implements Store.
func (f File) Holders(ctx context.Context) ([]Holder, error) {
	cur, err := f.read()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []Holder{*cur}, nil
}

// Break implements Store: remove the file (a symbolic link itself, never
// what it points at).
func (f File) Break(ctx context.Context, h Holder) error {
	err := os.Remove(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// File is a lock file, for a tenant with no PowerDNS zone to hold its
// lock: created with O_EXCL (so of two runs exactly one creates it),
// holding the holder as JSON. It protects runs that share the file
// system, one runner's checkout; runs from two machines need a shared
// store (PowerDNS metadata).
type File struct {
	Path string
	Now  func() time.Time // time.Now when nil
}

// FilePath is the lock file of the tenant whose spec is specFile:
// beside it, hidden, named for the tenant.
func FilePath(specFile, tenant string) string {
	return filepath.Join(filepath.Dir(specFile), "."+tenant+".lock")
}

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
		took, err := f.takeOver(cur)
		if err != nil {
			return nil, err
		}
		if took {
			ReportTakeover(ctx, *cur)
		}
	}
	return nil, fmt.Errorf("%s: other runs keep taking it over; run again", f.Where())
}

// takeOver moves a dead holder's file aside, and says whether it was the
// dead holder's; when another run renewed or replaced it in the
// meantime, that file is put back.
func (f File) takeOver(dead *Holder) (bool, error) {
	aside := f.Path + ".expired-" + dead.ID
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

func (f File) create(h Holder) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	file, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := file.Write(append(b, '\n')); err != nil {
		file.Close()
		os.Remove(f.Path)
		return err
	}
	return file.Close()
}

func (f File) read() (*Holder, error) { return readHolder(f.Path) }

func readHolder(path string) (*Holder, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h Holder
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("lock file %s is not a site lock (%v): if no site apply runs, remove it", path, err)
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
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	tmp := f.Path + ".renew-" + h.ID
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
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

// Break implements Store.
func (f File) Break(ctx context.Context, h Holder) error {
	err := os.Remove(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

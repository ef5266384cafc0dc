package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Dir is a tenant's journal in a directory of the operator's (beside
// its lock file): one file per entry, ID.json, written whole and renamed
// into place. Whatever is in the directory is read as hostile, as lock
// files are: only names of the form ValidID.json are looked at, at most
// maxNames of them; a file is opened without following a symbolic link,
// read only when regular and at most maxEntry bytes, and its entry must
// say the ID its name does and the tenant. No path is built from what a
// file says.
type Dir struct {
	Path   string
	Tenant string
}

// MaxEntry is the most bytes an entry's JSON may have, in any store:
// about 20,000 changes with their before-images (385 bytes each,
// measured). An apply that changed more is not journalled (said).
const MaxEntry = 8 << 20

const maxEntry = MaxEntry

// maxNames bounds how many names are read from the directory: site
// keeps Keep files there, and a directory holding millions must not be
// listed into memory.
const maxNames = 1024

// NewDir is the journal in the directory path (made 0700 when missing;
// it must be a directory, not a symbolic link to one).
func NewDir(path, tenant string) (Dir, error) {
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return Dir{}, fmt.Errorf("creating the journal directory: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return Dir{}, err
	}
	if !fi.IsDir() {
		return Dir{}, fmt.Errorf("journal %s is not a directory (a symbolic link or a file): site keeps it as a directory of its own; remove it", path)
	}
	return Dir{Path: path, Tenant: tenant}, nil
}

// Where implements Store.
func (d Dir) Where() string { return "directory " + d.Path }

// Append implements Store.
func (d Dir) Append(ctx context.Context, e Entry) error {
	if !ValidID(e.ID) || e.Tenant != d.Tenant {
		return fmt.Errorf("journal %s: entry %q of tenant %q is not one site makes", d.Path, e.ID, e.Tenant)
	}
	// Compact: entries are read by site (history, undo), not people, and
	// indenting a 10,000-change entry cost more than writing it.
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if len(b) > maxEntry {
		return fmt.Errorf("journal %s: the entry of this apply is %d bytes, over the %d a journal entry may hold, so it was not written: site undo cannot undo this apply", d.Path, len(b), maxEntry)
	}
	tmp := filepath.Join(d.Path, "."+e.ID+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("journal %s: %w", d.Path, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(d.Path, e.ID+".json"))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal %s: %w", d.Path, err)
	}
	return d.prune()
}

// prune removes the oldest entries beyond Keep.
func (d Dir) prune() error {
	ids, err := d.ids()
	if err != nil {
		return err
	}
	var errs []error
	for len(ids) > Keep {
		// Remove never follows a symbolic link: a link named like an
		// entry goes, not what it points at.
		if err := os.Remove(filepath.Join(d.Path, ids[0]+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		ids = ids[1:]
	}
	return errors.Join(errs...)
}

// ids are the entry IDs the directory's names hold, oldest first.
func (d Dir) ids() ([]string, error) {
	f, err := os.OpenFile(d.Path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", d.Path, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(maxNames + 1)
	if err != nil && len(names) == 0 && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("journal %s: %w", d.Path, err)
	}
	if len(names) > maxNames {
		return nil, fmt.Errorf("journal %s holds more than %d files; site keeps %d there: it is not site's alone, so it is not read; move it aside", d.Path, maxNames, Keep)
	}
	var ids []string
	for _, n := range names {
		if id, ok := strings.CutSuffix(n, ".json"); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// List implements Store.
func (d Dir) List(ctx context.Context) ([]Entry, []string, error) {
	ids, err := d.ids()
	if err != nil {
		return nil, nil, err
	}
	if len(ids) > Keep {
		ids = ids[len(ids)-Keep:]
	}
	var out []Entry
	var skipped []string
	for i := len(ids) - 1; i >= 0; i-- {
		e, err := d.read(ids[i])
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		out = append(out, *e)
	}
	return out, skipped, nil
}

// Get implements Store.
func (d Dir) Get(ctx context.Context, id string) (*Entry, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q is not a journal entry id: site history lists them (like 20261207T182526.042Z-3F9A1C0B)", id)
	}
	e, err := d.read(id)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tenant %s's journal (%s) has no entry %s: site history lists those it keeps (the last %d)", d.Tenant, d.Where(), id, Keep)
	}
	return e, err
}

// read reads the entry id. Its errors never quote the file's bytes.
func (d Dir) read(id string) (*Entry, error) {
	path := filepath.Join(d.Path, id+".json")
	b, err := readSmall(path, maxEntry)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("journal entry %s is not site's (%v): left alone", path, err)
	}
	e, err := Decode(b, d.Tenant)
	if err == nil && e.ID != id {
		err = errors.New("its id is not its file's name")
	}
	if err != nil {
		return nil, fmt.Errorf("journal entry %s is not site's (%v): left alone", path, err)
	}
	return e, nil
}

// Decode reads an entry of tenant's journal from b, which a store gave
// and anything may have written: b must be at most maxEntry bytes and
// the entry one site writes. Its errors never quote b.
func Decode(b []byte, tenant string) (*Entry, error) {
	if len(b) > maxEntry {
		return nil, fmt.Errorf("larger than %d bytes", maxEntry)
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, errors.New("not the JSON of an entry")
	}
	if err := e.check(tenant); err != nil {
		return nil, err
	}
	return &e, nil
}

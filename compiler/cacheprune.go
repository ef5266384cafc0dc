package compiler

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A user who edits specs daily writes new entries daily, and a rebuilt
// site never reads the old build's: without pruning the cache grows
// without bound. Pruning runs at most once a day per cache directory
// (the mtime of a marker file says when it last ran), removes entries
// not used for a while (a hit moves an entry's mtime forward), then
// removes entries until the whole fits a size cap, another build's
// entries first, then the least recently used.
//
// It removes only what is ours by name: entries under dir/b-TAG/HH/
// (and dir/HH/, the layout before entries were kept per build), named
// by their hash in lowercase hex, regular files, and our temporary
// files left by a run that died mid-write. Symbolic links are never
// followed nor removed. A run that reads an entry a concurrent prune
// removed finds no entry: a miss, and the entry is evaluated again.

// pruneMarker is the file whose mtime says when pruning last ran.
const pruneMarker = ".pruned"

// buildDirPrefix starts the name of a build's directory.
const buildDirPrefix = "b-"

// tagBytes is how many bytes of hash name a build.
const tagBytes = 8

// touchAfter is how stale an entry's mtime may be before a hit moves it:
// most hits then cost no write, and a use is still known to the hour.
const touchAfter = time.Hour

// PrunePolicy says when and what Prune removes.
type PrunePolicy struct {
	Every   time.Duration // prune at most this often per cache directory
	MaxAge  time.Duration // remove entries not used for this long
	MaxSize int64         // then remove entries until all fit in this many bytes
}

// DefaultPrune is the policy of site's commands.
var DefaultPrune = PrunePolicy{Every: 24 * time.Hour, MaxAge: 30 * 24 * time.Hour, MaxSize: 256 << 20}

// readUsed reads the entry at name and, when its mtime is older than
// touchAfter, moves it to now: the mtime is when the entry was last used.
func readUsed(name string, now time.Time) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	// Read at the size the file has: io.ReadAll's growing from 512
	// bytes was a tenth of reading a neighbour's index. A file that
	// changed size since (not one of ours: a write renames a whole
	// entry into place) fails its checksum: a miss.
	data := make([]byte, fi.Size())
	_, err = io.ReadFull(f, data)
	if err == nil && now.Sub(fi.ModTime()) > touchAfter {
		// A failed touch costs nothing but an earlier prune.
		os.Chtimes(name, now, now)
	}
	return data, err
}

// Prune removes stale entries under p, unless it ran less than p.Every
// ago. It returns how many entries it removed. Errors only mean less was
// removed: a caller may ignore them.
func (c *Cache) Prune(now time.Time, p PrunePolicy) (int, error) {
	build, err := buildIdentity()
	if err != nil {
		return 0, err
	}
	if due, err := c.pruneDue(now, p.Every); !due {
		return 0, err
	}
	found, err := c.scan(buildTag(build))
	if err != nil {
		return 0, err
	}
	removed := 0
	var total int64
	var keep []cacheFile
	for _, f := range found {
		if f.temp && now.Sub(f.used) > p.Every || !f.temp && now.Sub(f.used) > p.MaxAge {
			removed += c.remove(f)
			continue
		}
		total += f.size
		keep = append(keep, f)
	}
	// Another build's entries go first, then the least recently used.
	slices.SortFunc(keep, func(a, b cacheFile) int {
		if a.foreign != b.foreign {
			if a.foreign {
				return -1
			}
			return 1
		}
		return a.used.Compare(b.used)
	})
	for _, f := range keep {
		if total <= p.MaxSize {
			break
		}
		total -= f.size
		removed += c.remove(f)
	}
	return removed, nil
}

// pruneDue says whether pruning last ran p.Every or more ago, and marks
// it as running now. A marker that is not a regular file is not ours:
// nothing is pruned.
func (c *Cache) pruneDue(now time.Time, every time.Duration) (bool, error) {
	name := filepath.Join(c.dir, pruneMarker)
	fi, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(c.dir); err != nil {
			return false, nil // no cache yet: nothing to prune
		}
		// O_EXCL creates the file, never a symbolic link's target.
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return false, err // a concurrent run made it: that one prunes
		}
		f.Close()
	case err != nil:
		return false, err
	case !fi.Mode().IsRegular():
		return false, nil
	case now.Sub(fi.ModTime()) < every:
		return false, nil
	}
	return true, os.Chtimes(name, now, now)
}

// cacheFile is one file of ours found in the cache directory.
type cacheFile struct {
	path    string
	size    int64
	used    time.Time // mtime
	foreign bool      // another build's entry
	temp    bool      // a temporary file of put
}

// remove removes f and returns 1 for an entry removed. Another build's
// directories are removed once empty; os.Remove never removes a
// directory that is not, so a concurrent write keeps its own.
func (c *Cache) remove(f cacheFile) int {
	if os.Remove(f.path) != nil {
		return 0 // gone already: a concurrent prune
	}
	if f.foreign {
		bucket := filepath.Dir(f.path)
		if os.Remove(bucket) == nil && filepath.Dir(bucket) != filepath.Clean(c.dir) {
			os.Remove(filepath.Dir(bucket))
		}
	}
	if f.temp {
		return 0
	}
	return 1
}

// scan lists the entries and temporary files under the cache directory,
// the build tagged tag being the current one.
func (c *Cache) scan(tag string) ([]cacheFile, error) {
	top, err := os.ReadDir(c.dir)
	if err != nil {
		return nil, err
	}
	var out []cacheFile
	for _, d := range top {
		name := d.Name()
		switch {
		case !d.IsDir(): // a DirEntry of a symbolic link is no directory
		case isHex(name, 2): // the layout before build directories
			out = append(out, scanBucket(filepath.Join(c.dir, name), true)...)
		case strings.HasPrefix(name, buildDirPrefix) && isHex(name[len(buildDirPrefix):], 2*tagBytes):
			bt := name[len(buildDirPrefix):]
			out = append(out, c.scanBuild(filepath.Join(c.dir, name), bt != tag)...)
		}
	}
	return out, nil
}

// scanBuild lists one build directory's entries.
func (c *Cache) scanBuild(dir string, foreign bool) []cacheFile {
	buckets, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []cacheFile
	for _, d := range buckets {
		if d.IsDir() && isHex(d.Name(), 2) {
			out = append(out, scanBucket(filepath.Join(dir, d.Name()), foreign)...)
		}
	}
	return out
}

// scanBucket lists the regular files of ours in one bucket directory.
func scanBucket(dir string, foreign bool) []cacheFile {
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []cacheFile
	for _, d := range files {
		name := d.Name()
		temp := strings.HasPrefix(name, ".tmp-")
		if !d.Type().IsRegular() || !temp && !isHex(name, 62) {
			continue
		}
		fi, err := d.Info() // lstat: never a link's target
		if err != nil || !fi.Mode().IsRegular() {
			continue // removed meanwhile, or not ours
		}
		out = append(out, cacheFile{path: filepath.Join(dir, name), size: fi.Size(), used: fi.ModTime(), foreign: foreign, temp: temp})
	}
	return out
}

// isHex says whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

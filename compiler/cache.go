package compiler

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/site-tools/site/schema"
)

// Evaluating a file is most of what loading costs, and most runs load
// files that have not changed since the last one. A Cache keeps each
// file's evaluation result (its tenants as plain values, its position
// index and its diagnostics) under a key that hashes every input that
// result depends on: the file's name and bytes, the operator's
// site.cue, the embedded schema and the build of site itself. Only
// evaluation is skipped: the model is still built and every check
// between tenants still runs, since those depend on every file. Of a
// file loaded only as a neighbour, what those checks need of it is kept
// beside its entry, and read instead (neighbourindex.go).
//
// An entry is written to a temporary file and renamed into place, so
// concurrent runs see a whole entry or none, and it carries a checksum
// of its body: an entry that is truncated, corrupt or unreadable is a
// miss, and the evaluation that follows rewrites it. Nothing is cached
// from a run whose evaluation did not complete (a budget passed), nor a
// file whose evaluation panicked. Every error of the cache itself is a
// miss, never a failed load.
type Cache struct {
	dir string
}

// OpenCache returns the cache kept in dir, created on first write.
func OpenCache(dir string) *Cache { return &Cache{dir: dir} }

// OpenDefaultCache is the cache of site's commands, in DefaultCacheDir,
// pruned at most once a day (DefaultPrune; a prune that fails only
// leaves more on disk). No cache directory (no $HOME, say) means no
// cache, nil, not an error: the cache only saves time.
func OpenDefaultCache(now time.Time) *Cache {
	dir, err := DefaultCacheDir()
	if err != nil {
		return nil
	}
	c := OpenCache(dir)
	c.Prune(now, DefaultPrune)
	return c
}

// DefaultCacheDir is $SITE_CACHE_DIR when set, else "site" in the
// user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS).
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("SITE_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "site"), nil
}

// cacheFormat names the layout of keys and entries; changing either
// changes it, so old entries are never read as new ones.
const cacheFormat = "site-cache 3"

// cacheKeyer computes the keys of one load: the inputs every file shares
// are hashed once.
type cacheKeyer struct {
	base []byte // hash of the format, build, schema and site.cue
	tag  string // buildTag: the directory of this build's entries
}

func (c *Cache) keyer(site []byte) (*cacheKeyer, error) {
	build, err := buildIdentity()
	if err != nil {
		return nil, err
	}
	// The providers' record rules (UseRules) decide what vet refuses,
	// as the build and the schema do.
	return &cacheKeyer{base: cacheBase(build+" rules:"+rulesSum(), schemaSum(), site), tag: buildTag(build)}, nil
}

// buildTag names the directory that holds one build's entries: pruning
// tells another build's entries, which this build never reads, by it.
func buildTag(build string) string {
	sum := sha256.Sum256([]byte(cacheFormat + "\x00" + build))
	return hex.EncodeToString(sum[:tagBytes])
}

func cacheBase(build string, schema [32]byte, site []byte) []byte {
	h := sha256.New()
	siteSum := sha256.Sum256(site)
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%x\x00%x\x00", cacheFormat, len(build), build, schema, siteSum)
	return h.Sum(nil)
}

// key names the entry for the file at path holding data: the build's
// tag, then the hash. The path is part of it since the result's
// positions name the file.
func (k *cacheKeyer) key(path string, data []byte) string {
	h := sha256.New()
	h.Write(k.base)
	fmt.Fprintf(h, "%d\x00%s\x00", len(path), path)
	h.Write(data)
	return k.tag + hex.EncodeToString(h.Sum(nil))
}

// entry is where the entry of key lives: dir/b-TAG/HH/REST, HH spreading
// a build's entries over 256 directories.
func (c *Cache) entry(key string) string {
	tag, sum := key[:len(key)-64], key[len(key)-64:]
	return filepath.Join(c.dir, buildDirPrefix+tag, sum[:2], sum[2:])
}

// get returns the result stored under key for the file at path, or nil.
// meta, when not nil, is given the result without its positions and
// records as soon as they are all that is left to read (a whole entry,
// its checksum checked): what Options.Early needs.
func (c *Cache) get(key, path string, meta func(*fileResult)) *fileResult {
	data, err := readUsed(c.entry(key), time.Now())
	if err != nil {
		return nil
	}
	header, body, ok := bytes.Cut(data, []byte("\n"))
	sum := sha256.Sum256(body)
	if !ok || string(header) != cacheFormat+" "+hex.EncodeToString(sum[:]) {
		return nil
	}
	r, ok := decodeEntry(body, path, meta)
	if !ok {
		return nil
	}
	return r
}

// put stores r under key (writeEntry).
func (c *Cache) put(key string, r *fileResult) error {
	body, err := encodeEntry(r)
	if err != nil {
		return err
	}
	return c.writeEntry(c.entry(key), cacheFormat, body)
}

// writeEntry writes a cache file: a line of format and body's SHA-256,
// then body, into a temporary file beside name, renamed over it once
// whole, so a reader never sees a file cut short.
func (c *Cache) writeEntry(name, format string, body []byte) error {
	sum := sha256.Sum256(body)
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(tmp, "%s %x\n", format, sum)
	if err == nil {
		_, err = tmp.Write(body)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

var schemaSum = sync.OnceValue(func() [32]byte {
	h := sha256.New()
	names, _ := fs.Glob(schema.FS, "*.cue")
	for _, name := range names {
		data, _ := fs.ReadFile(schema.FS, name)
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(data))
		h.Write(data)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
})

// buildIdentity names this build of site: the module's version and the
// Go build ID of the running executable, which changes with any change
// to the code or the flags it was built with, released or not. An
// executable without a build ID is named by the hash of its content.
// When neither can be read, nothing is cached.
var buildIdentity = sync.OnceValues(func() (string, error) {
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Path + "@" + info.Main.Version
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	id, err := executableID(exe)
	if err != nil {
		return "", err
	}
	return version + " " + id, nil
})

// executableID names the executable at exe by its Go build ID, which
// the linker writes in an ELF note (Linux, the BSDs) or at the start of
// the text segment, within the first pages of the file (macOS,
// Windows); cmd/internal/buildid reads it the same ways. An executable
// without one is named by the hash of its content.
func executableID(exe string) (string, error) {
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if ef, err := elf.NewFile(f); err == nil {
		if s := ef.Section(".note.go.buildid"); s != nil {
			// namesz, descsz, type, "Go\x00\x00", then the ID.
			if note, err := s.Data(); err == nil && len(note) > 16 && string(note[12:16]) == "Go\x00\x00" {
				return "buildid:" + string(bytes.TrimRight(note[16:], "\x00")), nil
			}
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	head := make([]byte, buildIDSearch)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	head = head[:n]
	if _, rest, ok := bytes.Cut(head, []byte("\xff Go build ID: \"")); ok {
		if id, _, ok := bytes.Cut(rest, []byte(`"`)); ok && len(id) > 0 && isPrintable(id) {
			return "buildid:" + string(id), nil
		}
	}
	h := sha256.New()
	h.Write(head)
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)), nil
}

const buildIDSearch = 64 << 10

func isPrintable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const day = 24 * time.Hour

// cacheFixture is one file (or link) in a cache directory made for a
// test: its path under the directory, its size and its age.
type cacheFixture struct {
	rel  string
	size int
	age  time.Duration
	link string // a symbolic link to this path instead of a file
}

// hexName is the n-th of distinct names an entry may have.
func hexName(n int) string {
	return strings.Repeat("0", 60) + string("0123456789abcdef"[n/16]) + string("0123456789abcdef"[n%16])
}

func currentTag(t *testing.T) string {
	t.Helper()
	build, err := buildIdentity()
	if err != nil {
		t.Fatal(err)
	}
	return buildDirPrefix + buildTag(build)
}

// makeCache writes files into dir with mtimes now - age.
func makeCache(t *testing.T, dir string, now time.Time, files []cacheFixture) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if f.link != "" {
			if err := os.Symlink(f.link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, make([]byte, f.size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
}

// present lists which of files still exist (a link: the link itself).
func present(dir string, files []cacheFixture) []string {
	var out []string
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f.rel)); err == nil {
			out = append(out, f.rel)
		}
	}
	return out
}

func TestCachePrune(t *testing.T) {
	cur := currentTag(t)
	other := buildDirPrefix + strings.Repeat("f", 2*tagBytes)
	outside := t.TempDir()
	makeCache(t, outside, time.Now(), []cacheFixture{{rel: "00/" + hexName(9), size: 100, age: 400 * day}, {rel: "victim", size: 100, age: 400 * day}})
	policy := PrunePolicy{Every: day, MaxAge: 30 * day, MaxSize: 1 << 30}
	capped := policy
	capped.MaxSize = 250
	tests := []struct {
		name    string
		policy  PrunePolicy
		marker  time.Duration // age of the marker; 0: none
		files   []cacheFixture
		removed []string
	}{
		{"entries unused for long go, recent ones stay", policy, 0, []cacheFixture{
			{rel: cur + "/ab/" + hexName(1), size: 10, age: 40 * day},
			{rel: cur + "/ab/" + hexName(2), size: 10, age: 29 * day},
			{rel: cur + "/cd/" + hexName(3), size: 10, age: time.Hour},
		}, []string{cur + "/ab/" + hexName(1)}},
		{"the size cap removes the least recently used first", capped, 0, []cacheFixture{
			{rel: cur + "/ab/" + hexName(1), size: 100, age: 1 * day},
			{rel: cur + "/ab/" + hexName(2), size: 100, age: 4 * day},
			{rel: cur + "/cd/" + hexName(3), size: 100, age: 2 * day},
			{rel: cur + "/cd/" + hexName(4), size: 100, age: 3 * day},
		}, []string{cur + "/ab/" + hexName(2), cur + "/cd/" + hexName(4)}},
		{"another build's entries go first", capped, 0, []cacheFixture{
			{rel: cur + "/ab/" + hexName(1), size: 100, age: 5 * day},
			{rel: cur + "/ab/" + hexName(2), size: 100, age: 4 * day},
			{rel: other + "/ab/" + hexName(3), size: 100, age: time.Hour},
			{rel: "ab/" + hexName(4), size: 100, age: time.Hour}, // the layout before build directories
		}, []string{other + "/ab/" + hexName(3), "ab/" + hexName(4)}},
		{"files not ours stay, however old or big", capped, 0, []cacheFixture{
			{rel: "notes.txt", size: 1000, age: 400 * day},
			{rel: cur + "/ab/README", size: 1000, age: 400 * day},
			{rel: cur + "/ab/" + strings.ToUpper(hexName(10)), size: 1000, age: 400 * day},
			{rel: cur + "/ab/" + hexName(11) + "0", size: 1000, age: 400 * day},
			{rel: cur + "/xy/" + hexName(12), size: 1000, age: 400 * day},
			{rel: "b-mine/ab/" + hexName(13), size: 1000, age: 400 * day},
			{rel: cur + "/ab/" + hexName(14), link: filepath.Join(outside, "victim")},
			{rel: "cd", link: filepath.Join(outside, "00")},
		}, nil},
		{"stale temporary files go", policy, 0, []cacheFixture{
			{rel: cur + "/ab/.tmp-123", size: 10, age: 2 * day},
			{rel: cur + "/ab/.tmp-456", size: 10, age: time.Minute}, // a run writing it now
		}, []string{cur + "/ab/.tmp-123"}},
		{"not twice a day", policy, time.Hour, []cacheFixture{
			{rel: cur + "/ab/" + hexName(1), size: 10, age: 40 * day},
		}, nil},
		{"once a day", policy, 25 * time.Hour, []cacheFixture{
			{rel: cur + "/ab/" + hexName(1), size: 10, age: 40 * day},
		}, []string{cur + "/ab/" + hexName(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, now := t.TempDir(), time.Now()
			makeCache(t, dir, now, tc.files)
			if tc.marker != 0 {
				makeCache(t, dir, now, []cacheFixture{{rel: pruneMarker, age: tc.marker}})
			}
			if _, err := OpenCache(dir).Prune(now, tc.policy); err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, f := range tc.files {
				if !slices.Contains(tc.removed, f.rel) {
					want = append(want, f.rel)
				}
			}
			if got := present(dir, tc.files); !slices.Equal(got, want) {
				t.Errorf("left\n%q\nwant\n%q", got, want)
			}
			if got := present(outside, []cacheFixture{{rel: "victim"}, {rel: "00/" + hexName(9)}}); len(got) != 2 {
				t.Errorf("files outside the cache directory removed: only %q left", got)
			}
		})
	}
}

// TestCachePruneMarkerNotOurs: a marker that is a symbolic link is not
// ours; nothing is pruned and its target is not touched.
func TestCachePruneMarkerNotOurs(t *testing.T) {
	dir, now := t.TempDir(), time.Now()
	target := filepath.Join(t.TempDir(), "target")
	files := []cacheFixture{{rel: currentTag(t) + "/ab/" + hexName(1), size: 10, age: 40 * day}}
	makeCache(t, dir, now, append(files, cacheFixture{rel: pruneMarker, link: target}))
	if _, err := OpenCache(dir).Prune(now, DefaultPrune); err != nil {
		t.Fatal(err)
	}
	if got := present(dir, files); len(got) != 1 {
		t.Errorf("pruned through a marker that is not ours")
	}
	if _, err := os.Lstat(target); err == nil {
		t.Errorf("created the marker link's target")
	}
}

// TestCacheHitMarksUse: an entry read by a load is used, and pruning
// keeps it however old it was written.
func TestCacheHitMarksUse(t *testing.T) {
	dir := extract(t, "testdata/rules/record_content.txtar")
	cacheDir := t.TempDir()
	_, want := loadCached(t, dir, OpenCache(cacheDir))
	written := entries(t, cacheDir)
	old := time.Now().Add(-40 * day)
	for _, e := range written {
		os.Chtimes(e, old, old)
	}
	loadCached(t, dir, OpenCache(cacheDir))
	if n, err := OpenCache(cacheDir).Prune(time.Now(), DefaultPrune); err != nil || n != 0 {
		t.Errorf("pruned %d entries just used (%v), want none", n, err)
	}
	if _, got := loadCached(t, dir, OpenCache(cacheDir)); got.Error() != want.Error() {
		t.Errorf("got\n%v\nwant\n%v", got, want)
	}
}

// TestCachePruneWhileLoading prunes every entry while loads read them
// (run with -race): a load whose entry vanished evaluates, never fails.
func TestCachePruneWhileLoading(t *testing.T) {
	dir := extract(t, "testdata/rules/record_content.txtar")
	_, want := loadCached(t, dir, nil)
	cacheDir := t.TempDir()
	loadCached(t, dir, OpenCache(cacheDir))
	everything := PrunePolicy{Every: 0, MaxAge: 0, MaxSize: 0}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				if i%2 == 0 {
					OpenCache(cacheDir).Prune(time.Now(), everything)
					continue
				}
				if _, got := loadCached(t, dir, OpenCache(cacheDir)); got.Error() != want.Error() {
					t.Errorf("got\n%v\nwant\n%v", got, want)
				}
			}
		}()
	}
	wg.Wait()
}

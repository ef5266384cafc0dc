//go:build cgo && libvirt_dlopen

package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/backends/libvirt/seed"
	"github.com/site-tools/site/backends/libvirt/uploadmark"
	"github.com/site-tools/site/compiler/model"
)

// What an upload that did not finish leaves (storage, marker.go) no diff or
// apply looks at once no spec names its volume: a seed whose VM's
// tenant declares nothing on the host any more, a base image site.cue
// no longer declares, a seed upload whose marker an older site wrote
// (it names no tenant). site leftovers lists them from the markers:
// only those whose note site wrote (uploadmark.NoteHeader) prove an upload site
// began, so a volume is never listed for merely being unlisted. A
// volume or marker a domain has a disk on, or an owner element lists,
// is that domain's, and never listed.

// LeftUploads lists, for every pool on v's host in name order, with
// its UUID, the uploads that did not finish there that site's markers
// prove (libvirt.Driver.ListLeftUploads). A pool that is not active
// cannot list its volumes: its PoolUploads says so.
func LeftUploads(ctx context.Context, v *View) ([]backends.PoolUploads, error) {
	pools, err := v.poolNames()
	if err != nil {
		return nil, err
	}
	out := make([]backends.PoolUploads, 0, len(pools))
	for _, pool := range pools {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		left, seeds, err := v.leftUploadsIn(pool.name)
		p := backends.PoolUploads{Pool: pool.name, UUID: pool.uuid, Left: left, Seeds: seeds}
		if err != nil {
			p.Error = err.Error()
		}
		out = append(out, p)
	}
	return out, nil
}

// namedPool is a storage pool's name and UUID.
type namedPool struct{ name, uuid string }

// poolNames lists the name and UUID of every storage pool on the host,
// by name.
func (h *View) poolNames() ([]namedPool, error) {
	done := h.Set.Calling(h.Set.Server(h.Host), "ListAllStoragePools")
	pools, err := h.Conn.ListAllStoragePools(0)
	done()
	if err != nil {
		return nil, fmt.Errorf("list the storage pools on %s: %w", h.Host, err)
	}
	defer func() {
		for _, p := range pools {
			_ = p.Free()
		}
	}()
	var names []namedPool
	for _, p := range pools {
		h.Set.Call()
		name, err := p.GetName()
		if err != nil {
			return nil, fmt.Errorf("read a storage pool's name on %s: %w", h.Host, err)
		}
		h.Set.Call()
		uuid, err := p.GetUUIDString()
		if err != nil {
			return nil, fmt.Errorf("read the UUID of storage pool %s on %s: %w", name, h.Host, err)
		}
		names = append(names, namedPool{name, uuid})
	}
	sort.Slice(names, func(i, j int) bool { return names[i].name < names[j].name })
	return names, nil
}

// leftUploadsIn lists the uploads left in pool, and the whole seeds no
// domain has (see above). What is cheap is judged first: whether a
// domain has a volume (inUse), then a note or a seed's bytes (four
// calls each).
func (h *View) leftUploadsIn(pool string) ([]backends.LeftUpload, []backends.LeftSeed, error) {
	h.Lock()
	defer h.Unlock()
	names, err := h.VolNames(pool)
	if err != nil {
		return nil, nil, err
	}
	ups, seeds := uploadsIn(names), unmarkedSeeds(names)
	if len(ups) == 0 && len(seeds) == 0 {
		return nil, nil, nil
	}
	p, err := h.Pool(pool)
	if err != nil {
		return nil, nil, err
	}
	defer p.Free()
	r := poolReader{h: h, p: p, pool: pool}
	left, err := r.leftUploads(ups, names)
	if err != nil {
		return nil, nil, err
	}
	made, err := r.leftSeeds(seeds)
	if err != nil {
		return nil, nil, err
	}
	return left, made, nil
}

// leftUploads keeps the uploads of ups that site's notes prove and no
// domain has; names are the pool's volumes.
func (r poolReader) leftUploads(ups []markedUpload, names []string) ([]backends.LeftUpload, error) {
	var out []backends.LeftUpload
	for _, u := range ups {
		used, err := r.inUse(u.present(names))
		if err != nil {
			return nil, err
		}
		if used {
			continue
		}
		note, proved, err := r.siteNote(u.markers)
		if err != nil {
			return nil, err
		}
		if !proved {
			continue
		}
		out = append(out, backends.LeftUpload{Pool: r.pool, Volume: u.volume, Partial: u.volume != "" && slices.Contains(names, u.volume),
			Markers: u.markerNames(), Tenant: note.Tenant, Seed: model.SeedVolumeName.MatchString(u.volume),
			Run: note.Who(), RunGone: note.Gone()})
	}
	return out, nil
}

// inUse reports whether an owner element lists one of vols, or a
// domain on the host, site's or not, running or not, has a disk on
// one, by pool and name or by its file. It is judged before anything
// of the volumes is read: in a directory pool it costs one read of the
// pool's definition, whatever the number of volumes.
func (r poolReader) inUse(vols []string) (bool, error) {
	listed := r.h.OwnerListed()
	for _, v := range vols {
		if listed[ownership.Volume{Pool: r.pool, Name: v}.Key()] {
			return true, nil
		}
	}
	if r.h.diskOnAny(r.pool, vols, nil) {
		return true, nil
	}
	paths, err := r.paths(vols)
	if err != nil {
		return false, err
	}
	return r.h.diskOnAny(r.pool, vols, paths), nil
}

// unmarkedSeeds are the volumes of names with a seed's name and no
// upload marker: whole seeds, whoever made them.
func unmarkedSeeds(names []string) []string {
	marked := map[string]bool{}
	for _, u := range uploadsIn(names) {
		marked[u.volume] = true
	}
	var out []string
	for _, n := range names {
		if model.SeedVolumeName.MatchString(n) && !marked[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// maxSeedBytes bounds the seed read to prove it site's: a larger
// volume is not read, and not reported.
const maxSeedBytes = 16 << 20

// leftSeeds keeps the seeds among vols that no domain has, no owner
// element lists, and whose bytes prove site made them (seed.Made).
func (r poolReader) leftSeeds(vols []string) ([]backends.LeftSeed, error) {
	var out []backends.LeftSeed
	for _, name := range vols {
		used, err := r.inUse([]string{name})
		if err != nil {
			return nil, err
		}
		if used {
			continue
		}
		iso, err := r.read(name, maxSeedBytes)
		if err != nil {
			return nil, err
		}
		if s, vm, ok := seed.Made(iso); ok && s.Name == name {
			out = append(out, backends.LeftSeed{Pool: r.pool, Volume: name, VM: vm})
		}
	}
	return out, nil
}

// markedUpload is one upload's markers in a pool, oldest first, and
// the volume they mark ("" when a hash names it and no volume of the
// pool has that name).
type markedUpload struct {
	volume  string
	markers []uploadmark.Marker
}

func (u markedUpload) markerNames() []string {
	out := make([]string, len(u.markers))
	for i, m := range u.markers {
		out[i] = m.Name
	}
	return out
}

// present is the upload's volumes that names holds: its markers, and
// the volume when it is there.
func (u markedUpload) present(names []string) []string {
	out := u.markerNames()
	if u.volume != "" && slices.Contains(names, u.volume) {
		out = append(out, u.volume)
	}
	return out
}

// hashedMarker is the first marker of an upload into a name too long
// to carry the marker's dot and suffix (uploadmark.UploadingName).
var hashedMarker = regexp.MustCompile(`^\.uploading-[0-9a-f]{32}$`)

// uploadsIn groups the upload markers among a pool's volume names by
// the upload they mark, by volume name.
func uploadsIn(names []string) []markedUpload {
	byBase := map[string]markedUpload{}
	for _, n := range names {
		base, gen, ok := markerBase(n)
		if !ok {
			continue
		}
		u := byBase[base]
		if u.volume == "" {
			u.volume = markedVolume(base, names)
		}
		u.markers = append(u.markers, uploadmark.Marker{Name: n, Gen: gen})
		byBase[base] = u
	}
	out := make([]markedUpload, 0, len(byBase))
	for _, u := range byBase {
		slices.SortFunc(u.markers, func(a, b uploadmark.Marker) int { return a.Gen - b.Gen })
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].volume != out[j].volume {
			return out[i].volume < out[j].volume
		}
		return out[i].markers[0].Name < out[j].markers[0].Name
	})
	return out
}

// markerBase reads name as a marker of generation gen whose first
// marker is base (uploadmark.Name): ok is false for any other volume.
func markerBase(name string) (base string, gen int, ok bool) {
	base = name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		if g, err := strconv.Atoi(name[i+1:]); err == nil && g > 0 && strconv.Itoa(g) == name[i+1:] {
			base, gen = name[:i], g
		}
	}
	if hashedMarker.MatchString(base) {
		return base, gen, true
	}
	vol, ok := strings.CutSuffix(strings.TrimPrefix(base, "."), ".uploading")
	if !ok || !strings.HasPrefix(base, ".") || vol == "" || uploadmark.UploadingName(vol) != base {
		return "", 0, false
	}
	return base, gen, true
}

// markedVolume is the volume whose first marker is base: the name base
// carries, or for a hashed one the volume of names whose hash it is.
func markedVolume(base string, names []string) string {
	if !hashedMarker.MatchString(base) {
		return strings.TrimSuffix(strings.TrimPrefix(base, "."), ".uploading")
	}
	for _, n := range names {
		sum := sha256.Sum256([]byte(n))
		if ".uploading-"+hex.EncodeToString(sum[:16]) == base {
			return n
		}
	}
	return ""
}

// diskOnAny reports whether a domain on the host, site's or not,
// running or not, has a disk on one of vols of pool, by pool and name,
// or by file path when paths (vols' paths, "" for unknown) is given.
func (h *View) diskOnAny(pool string, vols, paths []string) bool {
	for i, name := range vols {
		path := ""
		if paths != nil {
			path = paths[i]
		}
		for _, dom := range h.DomainNames() {
			o := h.Domains[dom]
			for _, def := range []*libvirtxml.Domain{o.Inactive, o.Live} {
				if _, on := domain.DiskOn(def, pool, name, path); on {
					return true
				}
			}
		}
	}
	return false
}

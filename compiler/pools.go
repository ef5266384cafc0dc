package compiler

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/site-tools/site/compiler/model"
)

// Storage pools are the operator's: site.cue declares them on a host
// (hosts: NAME: pools: POOL: {type, path}) and site creates the missing
// ones. A tenant's disk names a pool by name only; naming one that is
// not declared keeps working, as long as it exists on the host.

// volumeName is what a tenant may call a volume (a disk, or the base it
// starts from): a file name in a dir pool, never "." or "..", a path,
// or a hidden file. A tenant's names reach libvirt's XML, the plan and
// the pull request comment it is posted as, so they hold no character
// that means more there: no white space, control character, '/', '<',
// '@' or Markdown.
var volumeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,254}$`)

// checkVolumeNames reports a disk's pool, volume or base that is not a
// name site can write, at the field.
func (b *builder) checkVolumeNames(dp []string, pool, name, base string) {
	if !libvirtName.MatchString(pool) {
		b.errorf(at(dp, "pool"), "pool name %q: use letters, digits, '-', '_', '.' and '+', at most 63 characters", pool)
	}
	for _, f := range []struct{ field, name string }{{"name", name}, {"base", base}} {
		switch {
		case (f.field == "name" || f.name != "") && !volumeName.MatchString(f.name):
			b.errorf(at(dp, f.field), "volume name %q: use letters, digits, '-', '_', '.' and '+', first a letter or digit, at most 255 characters; rename the volume (virsh vol-clone) if it is already there", f.name)
		case model.SeedVolumeName.MatchString(f.name):
			b.errorf(at(dp, f.field), "volume name %q is how site names a cloud-init seed (seed-HASH.iso, made from a VM's cloudinit): seeds are site's to make, never a tenant's disk or base; name the volume otherwise", f.name)
		}
	}
}

// rawPool is one pool as CUE evaluated it, defaults applied.
type rawPool struct {
	Type string `json:"type"`
	Path string `json:"path"`
}

// rawImage is one base image as CUE evaluated it.
type rawImage struct {
	Pool   string `json:"pool"`
	Source string `json:"source"`
}

// readImages checks the base images declared on one host: each goes
// into a pool declared there (its step makes the pool first), from an
// absolute path. Whether the file is there is checked when a plan needs
// it: vet runs where the images are not.
func readImages(hostName string, raw map[string]*rawImage, pools map[string]*model.Pool, pos *positions, errorf func([]string, string, ...any)) map[string]*model.Image {
	out := map[string]*model.Image{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		ri, ip := raw[name], []string{"hosts", hostName, "images", name}
		p := pools[ri.Pool]
		switch {
		case p == nil:
			errorf(at(ip, "pool"), "pool %q is not declared on host %s: an image goes into a pool site.cue declares there (pools: %s: {type: \"dir\", path: DIR})", ri.Pool, hostName, ri.Pool)
		case !path.IsAbs(ri.Source):
			errorf(at(ip, "source"), "image source %q: write the file's absolute path on the machine that runs site", ri.Source)
		default:
			out[ri.Pool+"/"+name] = &model.Image{Pool: p, Name: name, Source: ri.Source, Pos: pos.pos(ip...)}
		}
	}
	return out
}

// poolTypes are the pool types site can create. Other types (logical,
// netfs, iscsi, ...) need more than a directory to build them.
var poolTypes = map[string]bool{"dir": true}

// readPools checks the pools declared on one host.
func readPools(hostName, uri string, raw map[string]*rawPool, pos *positions, errorf func([]string, string, ...any)) map[string]*model.Pool {
	out := map[string]*model.Pool{}
	paths := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		rp, pp := raw[name], []string{"hosts", hostName, "pools", name}
		if !poolTypes[rp.Type] {
			errorf(at(pp, "type"), "pool type %q is not supported: site creates dir pools only (type: \"dir\"); create other pools by hand and name them from a disk without declaring them", rp.Type)
			continue
		}
		if !path.IsAbs(rp.Path) || path.Clean(rp.Path) != rp.Path {
			errorf(at(pp, "path"), "pool path %q: write an absolute, clean directory such as \"/var/lib/site/pools/%s\"", rp.Path, name)
			continue
		}
		if other, ok := paths[rp.Path]; ok {
			errorf(at(pp, "path"), "pools %s and %s on host %s have the same path %s: one directory holds one pool", other, name, hostName, rp.Path)
			continue
		}
		paths[rp.Path] = name
		out[name] = &model.Pool{HostName: hostName, Host: uri, Name: name, Type: rp.Type, Path: rp.Path, Pos: pos.pos(pp...)}
	}
	return out
}

// maxDisks is how many disks a VM may have: the libvirt driver names
// them vda to vdz (diskTarget). The bound also keeps one VM from costing
// its host thousands of volume reads on every diff (each disk is a few
// libvirt calls), as the grant's limits do for VMs.
const maxDisks = 26

// vmDisks reads a VM's disks and the declared pools its volumes live
// in (its disks' and its seed's, which goes to the first disk's pool).
func (b *builder) vmDisks(v *model.VM, vp []string, raw *rawVM) {
	if len(raw.Disks) > maxDisks {
		b.errorf(at(vp, "disks"), "VM %s declares %d disks, at most %d: they are vda to vdz on its virtio bus; put the data of several on one larger disk", v.Name, len(raw.Disks), maxDisks)
		return
	}
	disks := map[string]int{}
	for i, d := range raw.Disks {
		dp := at(vp, "disks", strconv.Itoa(i))
		b.checkVolumeNames(dp, d.Pool, d.Name, d.Base)
		size, err := ParseSize(d.Size)
		if err != nil {
			b.errorf(at(dp, "size"), "%v", err)
		}
		key := d.Pool + "/" + d.Name
		if j, ok := disks[key]; ok {
			b.related(at(dp, "name"), []model.Pos{b.pos.pos(at(vp, "disks", strconv.Itoa(j))...)}, "disk %s is listed twice", key)
		}
		disks[key] = i
		switch {
		case b.op.images[v.HostName][key] != nil:
			// Every tenant's disks start from it: one tenant's guest
			// writing it would change (or read out) the others'.
			b.related(at(dp, "name"), []model.Pos{b.op.images[v.HostName][key].Pos},
				"volume %s is an image site.cue provides on host %s, every tenant's to start from, never one's disk: name a disk of your own with base: %q", key, v.HostName, d.Name)
		case d.Clone && d.Base == "":
			b.errorf(at(dp, "clone"), "clone copies a base volume: name it with base: \"IMAGE\", or drop clone for a blank disk")
		case d.Base != "" && d.Base == d.Name:
			b.errorf(at(dp, "base"), "disk %s names itself as its base; base is the image volume it starts from, in pool %s", d.Name, d.Pool)
		}
		v.Disks = append(v.Disks, model.Disk{Pool: d.Pool, Name: d.Name, SizeBytes: size, Base: d.Base, Clone: d.Clone,
			Pos: b.pos.pos(at(dp, "name")...), BasePos: b.pos.pos(at(dp, "base")...)})
	}
	// A base is read by every disk made from it: never a disk as well.
	for i, d := range v.Disks {
		if d.Base == "" || d.Base == d.Name {
			continue
		}
		if j, ok := disks[d.Pool+"/"+d.Base]; ok {
			b.related(at(vp, "disks", strconv.Itoa(i), "base"), []model.Pos{b.pos.pos(at(vp, "disks", strconv.Itoa(j))...)},
				"base %s/%s is also a disk of this VM: a disk written by a guest cannot be the image of another", d.Pool, d.Base)
		}
	}
	for _, d := range v.Disks {
		if img := b.op.images[v.HostName][d.Pool+"/"+d.Base]; d.Base != "" && img != nil && !slices.Contains(v.Images, img) {
			v.Images = append(v.Images, img)
		}
	}
	declared := b.op.pools[v.HostName]
	used := map[string]bool{"default": len(v.Disks) == 0 && raw.CloudInit != nil}
	for _, d := range v.Disks {
		used[d.Pool] = true
	}
	for name, ok := range used {
		if p := declared[name]; ok && p != nil {
			v.Pools = append(v.Pools, p)
		}
	}
	sort.Slice(v.Pools, func(i, j int) bool { return v.Pools[i].Name < v.Pools[j].Name })
}

package main

import (
	"fmt"
	"strings"
)

// The cases of issue 13's table. Each measures site (the binary, as a
// user runs it) and what it is compared with on the same zones, in one
// run on this machine, so that a busy machine slows both sides alike
// as far as it can.

func count(n int) string {
	if n >= 1000 && n%1000 == 0 {
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// bigZone is one zone of sizes.big records: apply from empty, and a
// converged diff from the cache and cold, beside the raw GET and PATCH.
func (b *bench) bigZone() ([]row, error) {
	n := count(b.sizes.big)
	w, err := b.oneZone("big", tenantBig, b.sizes.big)
	if err != nil {
		return nil, err
	}
	zone := w.zones[0]
	drop := func() error { return dropZones(b.srv, w.zones) }
	apply, err := measure(b.runs, drop, b.apply(w).run)
	if err != nil {
		return nil, err
	}
	get, err := measure(b.runs, nil, func() (sample, error) { return floorGET(b.srv, zone) })
	if err != nil {
		return nil, err
	}
	cached, cold, err := b.cachedAndCold(w)
	if err != nil {
		return nil, err
	}
	body, err := replaceBody(b.srv, zone)
	if err != nil {
		return nil, err
	}
	// The apply's floor: a GET of the empty zone and one PATCH writing
	// what site wrote. It leaves the zone as site's apply did.
	floor, err := measure(b.runs, func() error { return emptyZone(b.srv, zone) }, func() (sample, error) {
		g, err := floorGET(b.srv, zone)
		if err != nil {
			return g, err
		}
		p, err := floorPATCH(b.srv, zone, body)
		return sample{wall: g.wall + p.wall}, err
	})
	if err != nil {
		return nil, err
	}
	getText := "1 GET " + get.String()
	return []row{
		{name: "converged diff, " + n + " records, cached", site: cached.String(), against: getText,
			ratio: ratio(cached.wall.Seconds(), get.wall.Seconds()), unit: "wall", target: 2},
		{name: "converged diff, " + n + " records, cold (--no-cache)", site: cold.String(), against: getText,
			ratio: ratio(cold.wall.Seconds(), get.wall.Seconds()), unit: "wall", target: 4},
		{name: "apply from empty, " + n + " records", site: apply.String(), against: "1 GET + 1 PATCH " + floor.String(),
			ratio: ratio(apply.wall.Seconds(), floor.wall.Seconds()), unit: "wall"},
	}, nil
}

// biggerZone is one zone of sizes.bigger records: a converged diff
// beside the raw GET. Its apply from empty is measured once, as setup.
func (b *bench) biggerZone() ([]row, error) {
	n := count(b.sizes.bigger)
	w, err := b.oneZone("bigger", tenantBigger, b.sizes.bigger)
	if err != nil {
		return nil, err
	}
	if err := dropZones(b.srv, w.zones); err != nil {
		return nil, err
	}
	apply, err := b.apply(w).run()
	if err != nil {
		return nil, err
	}
	get, err := measure(b.runs, nil, func() (sample, error) { return floorGET(b.srv, w.zones[0]) })
	if err != nil {
		return nil, err
	}
	cached, cold, err := b.cachedAndCold(w)
	if err != nil {
		return nil, err
	}
	getText := "1 GET " + get.String()
	return []row{
		{name: "converged diff, " + n + " records, cached", site: cached.String(), against: getText,
			ratio: ratio(cached.wall.Seconds(), get.wall.Seconds()), unit: "wall"},
		{name: "converged diff, " + n + " records, cold (--no-cache)", site: cold.String(), against: getText,
			ratio: ratio(cold.wall.Seconds(), get.wall.Seconds()), unit: "wall"},
		{name: "apply from empty, " + n + " records (1 run)", site: apply.String(), against: ""},
	}, nil
}

// manyZones is sizes.zones zones of sizes.zoneRecords records, in one
// tenant's file and as as many tenants' files: the diff's memory of
// the two, and the apply from empty against site's own diff.
func (b *bench) manyZones() ([]row, error) {
	shape := fmt.Sprintf("%d zones × %d", b.sizes.zones, b.sizes.zoneRecords)
	one, err := b.zonesOneFile("zones-one-file")
	if err != nil {
		return nil, err
	}
	many, err := b.zonesManyFiles("zones-many-files")
	if err != nil {
		return nil, err
	}
	apply, err := measure(b.runs, func() error { return dropZones(b.srv, one.zones) }, b.apply(one).run)
	if err != nil {
		return nil, err
	}
	diff, err := measure(b.runs, nil, b.diff(one).run)
	if err != nil {
		return nil, err
	}
	// A converged apply writes nothing to the zones, but takes and
	// releases the tenant's lock in each of them.
	converged, err := measure(b.runs, nil, b.apply(one).run)
	if err != nil {
		return nil, err
	}
	gets, posts, applyFloor, err := b.zonesFloor(one)
	if err != nil {
		return nil, err
	}
	oneCold, err := measure(b.runs, nil, b.diff(one, "--no-cache").run)
	if err != nil {
		return nil, err
	}
	if err := dropZones(b.srv, many.zones); err != nil {
		return nil, err
	}
	if _, err := b.apply(many).run(); err != nil {
		return nil, err
	}
	manyCold, err := measure(b.runs, nil, b.diff(many, "--no-cache").run)
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "diff, " + shape + ", one file, cold", site: oneCold.String(),
			against: fmt.Sprintf("%d files: %s", b.sizes.zones, manyCold),
			ratio:   ratio(float64(oneCold.rss), float64(manyCold.rss)), unit: "memory", target: 1},
		{name: "apply from empty, " + shape + ", one file", site: apply.String(),
			against: "site's converged diff " + diff.String(),
			ratio:   ratio(apply.wall.Seconds(), diff.wall.Seconds()), unit: "wall", target: 2},
		{name: "converged apply, " + shape + ", one file", site: converged.String(),
			against: "site's converged diff " + diff.String(),
			ratio:   ratio(converged.wall.Seconds(), diff.wall.Seconds()), unit: "wall"},
		{name: "floor: one raw request per zone, 4 at a time", site: "",
			against: fmt.Sprintf("%d GETs %s, %d POSTs %s", b.sizes.zones, gets, b.sizes.zones, posts),
			ratio:   ratio(posts.wall.Seconds(), gets.wall.Seconds()), label: fmt.Sprintf("POSTs %.2f× GETs", ratio(posts.wall.Seconds(), gets.wall.Seconds()))},
		// What no client can go below: the target of the apply row
		// above is 2× site's diff, and this is the server's own work.
		{name: "floor: apply's server work, " + shape + ", 4 at a time", site: "",
			against: fmt.Sprintf("%d × (POST + AXFR) %s", b.sizes.zones, applyFloor),
			ratio:   ratio(applyFloor.wall.Seconds(), diff.wall.Seconds()),
			label:   fmt.Sprintf("%.2f× site's diff", ratio(applyFloor.wall.Seconds(), diff.wall.Seconds()))},
	}, nil
}

// zonesFloor times one raw GET of each of w's zones; then one raw POST
// creating each with what site's apply wrote into it; then what site's
// apply from empty asks of the server for each zone, the POST and the
// AXFR that verifies it. All 4 at a time, as site's default
// --parallelism. It leaves the zones as it found them.
func (b *bench) zonesFloor(w workspace) (gets, posts, applyFloor sample, err error) {
	bodies := map[string][]byte{}
	for _, z := range w.zones {
		if bodies[z], err = createBody(b.srv, z); err != nil {
			return gets, posts, applyFloor, err
		}
	}
	get := func(z string) error { _, err := floorGET(b.srv, z); return err }
	post := func(z string) error { return floorCreate(b.srv, z, bodies[z]) }
	postAndTransfer := func(z string) error {
		if err := post(z); err != nil {
			return err
		}
		return floorAXFR(b.srv, z)
	}
	many := func(do func(string) error) func() (sample, error) {
		return func() (sample, error) { return floorMany(w.zones, 4, do) }
	}
	drop := func() error { return dropZones(b.srv, w.zones) }
	if gets, err = measure(b.runs, nil, many(get)); err != nil {
		return gets, posts, applyFloor, err
	}
	if posts, err = measure(b.runs, drop, many(post)); err != nil {
		return gets, posts, applyFloor, err
	}
	applyFloor, err = measure(b.runs, drop, many(postAndTransfer))
	return gets, posts, applyFloor, err
}

// vetRows is site vet against cue vet -c on sizes.tenants generated
// files, on both cores and pinned to one: wall time and CPU time.
func (b *bench) vetRows() ([]row, error) {
	dir, specs, schemaFiles, err := writeVetInput(b.dir, b.sizes.tenants, b.sizes.vetRecords)
	if err != nil {
		return nil, err
	}
	shape := fmt.Sprintf("%s × %d", count(b.sizes.tenants), b.sizes.vetRecords)
	siteVet := command{env: []string{"SITE_CACHE_DIR=" + b.cache}, dir: dir, name: b.site, args: []string{"vet", "--no-cache", "tenants"}}
	cueVet := command{dir: dir, name: b.cue, args: append(append([]string{"vet", "-c"}, schemaFiles...), specs...)}
	var rows []row
	for _, cores := range []string{"2 cores", "1 core"} {
		s, c := siteVet, cueVet
		if cores == "1 core" {
			var ok bool
			if s, ok = oneCore(s); !ok {
				rows = append(rows, row{name: "site vet, " + shape + ", " + cores, site: "skipped: taskset is not installed"})
				continue
			}
			c, _ = oneCore(c)
		}
		site, err := measure(b.runs, nil, s.run)
		if err != nil {
			return nil, err
		}
		r := row{name: "site vet, " + shape + ", " + cores, site: cpuText(site), against: "cue not installed"}
		if b.cue != "" {
			cue, err := measure(b.runs, nil, c.run)
			if err != nil {
				return nil, err
			}
			wall, cpu := ratio(site.wall.Seconds(), cue.wall.Seconds()), ratio(site.cpu.Seconds(), cue.cpu.Seconds())
			// Both must be within the target: the row shows the worse.
			r.against, r.ratio, r.target = "cue vet -c "+cpuText(cue), max(wall, cpu), 0.8
			r.label = fmt.Sprintf("wall %.2f×, CPU %.2f×", wall, cpu)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func cpuText(s sample) string {
	return strings.TrimSpace(fmt.Sprintf("%s, CPU %.2f s", s.String(), s.cpu.Seconds()))
}

// cachedAndCold measures site diff of w from a filled evaluation cache
// and with --no-cache.
func (b *bench) cachedAndCold(w workspace) (cached, cold sample, err error) {
	if _, err := b.diff(w).run(); err != nil { // fills the cache
		return sample{}, sample{}, err
	}
	if cached, err = measure(b.runs, nil, b.diff(w).run); err != nil {
		return sample{}, sample{}, err
	}
	cold, err = measure(b.runs, nil, b.diff(w, "--no-cache").run)
	return cached, cold, err
}

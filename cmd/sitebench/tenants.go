package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/site-tools/site/compiler/specgen"
)

// tenantsCase is sizes.bigTenants tenants of sizes.tenantZones zones of
// sizes.tenantRecords records each (issue 25's and issue 27's 10,000
// zones over 100 tenants), applied from empty once as setup. Its rows:
// one tenant's converged diff, from the cache, among its neighbours
// against the same tenant's file alone beside the same site.cue (issue
// 25: at most 2×); and the converged apply of every tenant against the
// converged diff of the same specs (issue 27: at most 2×).
func (b *bench) tenantsCase() ([]row, error) {
	shape := fmt.Sprintf("%d zones over %d tenants", b.sizes.bigTenants*b.sizes.tenantZones, b.sizes.bigTenants)
	all := workspace{dir: filepath.Join(b.dir, "tenants")}
	if err := os.MkdirAll(all.dir, 0o755); err != nil {
		return nil, err
	}
	// Tenant numbers from tenantMany on: no other case writes these
	// zones.
	paths, err := specgen.WriteZonesFrom(all.dir, b.pdns(), tenantMany, b.sizes.bigTenants, b.sizes.tenantZones, b.sizes.tenantRecords)
	if err != nil {
		return nil, err
	}
	for i := range b.sizes.bigTenants {
		for z := range b.sizes.tenantZones {
			all.zones = append(all.zones, fmt.Sprintf("z%03d.t%04d.example.test.", z, tenantMany+i))
		}
	}
	one := filepath.Base(paths[len(paths)/2])
	lone := workspace{dir: filepath.Join(b.dir, "tenants-lone")}
	site, err := os.ReadFile(filepath.Join(all.dir, "site.cue"))
	if err != nil {
		return nil, err
	}
	spec, err := os.ReadFile(filepath.Join(all.dir, one))
	if err != nil {
		return nil, err
	}
	if err := writeFiles(lone.dir, map[string][]byte{"site.cue": site, one: spec}); err != nil {
		return nil, err
	}
	// The first load of every file evaluates them all: on a busy
	// machine that passes the default budget of 30 s.
	slow := []string{"--eval-timeout", "10m"}
	if _, err := b.siteRun(all, append([]string{"apply"}, slow...)...).run(); err != nil {
		return nil, err
	}
	diff, err := measure(b.runs, nil, b.diff(all, slow...).run)
	if err != nil {
		return nil, err
	}
	converged, err := measure(b.runs, nil, b.siteRun(all, append([]string{"apply"}, slow...)...).run)
	if err != nil {
		return nil, err
	}
	rows, err := b.amongAndAlone(all, lone, one, b.site, "", shape)
	if err != nil {
		return nil, err
	}
	if b.before != "" {
		before, err := b.amongAndAlone(all, lone, one, b.before, " (--before)", shape)
		if err != nil {
			return nil, err
		}
		rows = append(rows, before...)
	}
	return append(rows, row{name: "converged apply, " + shape, site: converged.String(),
		against: "site's converged diff " + diff.String(),
		ratio:   ratio(converged.wall.Seconds(), diff.wall.Seconds()), unit: "wall", target: 2}), nil
}

// amongAndAlone is the row of one tenant's converged diff, from the
// cache, among all's tenants against its file alone in lone, by the
// site binary bin. The two run in turn, so that a machine busy for a
// while slows both alike.
func (b *bench) amongAndAlone(all, lone workspace, one, bin, label, shape string) ([]row, error) {
	among, alone := b.diffOf(all, one), b.diffOf(lone, one)
	among.name, alone.name = bin, bin
	// The first diff of each fills the cache (the indexes of the
	// neighbours among them): measured are the diffs after.
	var amongS, aloneS []sample
	for i := range b.runs + 1 {
		a, err := among.run()
		if err != nil {
			return nil, err
		}
		l, err := alone.run()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			amongS, aloneS = append(amongS, a), append(aloneS, l)
		}
	}
	am, al := median(amongS), median(aloneS)
	return []row{{name: fmt.Sprintf("converged diff of one tenant (%d zones) among %s, cached%s", b.sizes.tenantZones, shape, label), site: am.String(),
		against: "the tenant's file alone " + al.String(),
		ratio:   ratio(am.wall.Seconds(), al.wall.Seconds()), unit: "wall", target: 2}}, nil
}

// diffOf is a converged diff of the tenant file named file in w.
func (b *bench) diffOf(w workspace, file string) command {
	c := b.diff(w)
	c.args[len(c.args)-1] = file
	return c
}

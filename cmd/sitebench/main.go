// Command sitebench prints issue 13's performance table: site, as a
// user runs the binary, beside the raw floor of the PowerDNS API (one
// GET, one PATCH of the same zone, with net/http) and, where the cue
// CLI is installed, cue vet -c; each ratio with its target, marked met
// or not. It never fails on a target it misses: it reports it.
//
//	sitebench table [--site bin/site] [--before BIN] [--cue cue] [--runs 3] [--pdns-dir DIR] [--cases LIST] [--samples FILE] [sizes]
//	sitebench vet   [--site bin/site] [--cue cue] [--tenants 1000] [--records 50]
//
// table starts a PowerDNS of its own on loopback (package pdnstest:
// pdns_server with the sqlite3 backend, make deps installs it) and
// writes generated specs (package specgen) into a temporary directory;
// site runs there with its evaluation cache in that directory too.
// --pdns-dir puts the server's database elsewhere: /dev/shm (tmpfs)
// takes the disk out of its writes.
// vet needs no server: site vet against cue vet -c alone. Every case
// runs --runs times and reports medians; cores are shared with whatever
// else runs on the machine, so ratios, measured in one run, are the
// figures to read.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "table" && os.Args[1] != "vet") {
		fmt.Fprintln(os.Stderr, "usage: sitebench table|vet [flags]; sitebench table -h lists them")
		os.Exit(2)
	}
	fl := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	site := fl.String("site", "bin/site", "the site binary to measure")
	cue := fl.String("cue", "cue", "the cue CLI to compare with (skipped when not found)")
	runs := fl.Int("runs", 3, "runs of each command; the median is reported")
	cases := fl.String("cases", "big,bigger,zones,vet,tenants", "the cases to run, comma-separated: big, bigger, zones, vet, tenants")
	before := fl.String("before", "", "another site binary (a build of main, say, that knows --request-timeout) the tenants case measures one tenant's diffs with too")
	samples := fl.String("samples", "", "a file that gets every run of every command (workspace, command, wall s, CPU s, peak MB), tab-separated, appended")
	pdnsRoot := fl.String("pdns-dir", "", "the directory that holds PowerDNS's database, e.g. /dev/shm for tmpfs (default: the bench's temporary directory)")
	var sz sizes
	fl.IntVar(&sz.big, "big", 10000, "records in the one-zone cases")
	fl.IntVar(&sz.bigger, "bigger", 50000, "records in the bigger one-zone case")
	fl.IntVar(&sz.zones, "zones", 200, "zones in the many-zones cases")
	fl.IntVar(&sz.zoneRecords, "zone-records", 50, "records in each of those zones")
	fl.IntVar(&sz.tenants, "tenants", 1000, "tenant files for site vet against cue vet")
	fl.IntVar(&sz.vetRecords, "records", 50, "records in each of those files")
	fl.IntVar(&sz.bigTenants, "many-tenants", 100, "tenants in the tenants case")
	fl.IntVar(&sz.tenantZones, "tenant-zones", 100, "zones of each of those tenants")
	fl.IntVar(&sz.tenantRecords, "tenant-records", 10, "records in each of those zones")
	_ = fl.Parse(os.Args[2:])
	bin, err := filepath.Abs(*site)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		fail(fmt.Errorf("--site %s: %w (make build builds it)", *site, err))
	}
	if *samples != "" {
		f, err := os.OpenFile(*samples, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fail(fmt.Errorf("--samples: %w", err))
		}
		defer f.Close()
		samplesOut = f
	}
	cuePath, err := exec.LookPath(*cue)
	if err != nil {
		cuePath = ""
	}
	if os.Args[1] == "vet" {
		if cuePath == "" {
			fail(fmt.Errorf("%s is not on PATH (go install cuelang.org/go/cmd/cue@v0.17.1)", *cue))
		}
		if err := vetOnly(bin, cuePath, sz.tenants, sz.vetRecords, *runs); err != nil {
			fail(err)
		}
		return
	}
	if *before != "" {
		if *before, err = filepath.Abs(*before); err != nil {
			fail(err)
		}
	}
	if err := table(bin, *before, cuePath, *runs, sz, strings.Split(*cases, ","), *pdnsRoot); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sitebench:", err)
	os.Exit(1)
}

// table runs every case against a PowerDNS of its own and prints them.
// PowerDNS keeps its database in a directory of its own below pdnsRoot
// ("" is the bench's temporary directory): on tmpfs its writes cost no
// disk.
func table(site, before, cue string, runs int, sz sizes, cases []string, pdnsRoot string) error {
	dir, err := os.MkdirTemp("", "sitebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if pdnsRoot == "" {
		pdnsRoot = dir
	}
	pdnsDir, err := os.MkdirTemp(pdnsRoot, "sitebench-pdns-")
	if err != nil {
		return fmt.Errorf("--pdns-dir: %w", err)
	}
	defer os.RemoveAll(pdnsDir)
	// A body limit that takes the floor's one PATCH of a whole zone
	// (site's own writes split at PowerDNS's default 2 MiB).
	srv, err := pdnstest.Start(pdnsDir, pdnstest.Options{MaxBodyMB: 16})
	if err != nil {
		return fmt.Errorf("start PowerDNS: %w", err)
	}
	defer srv.Close()
	b := &bench{srv: srv, site: site, before: before, cue: cue, dir: dir, cache: filepath.Join(dir, "cache"), runs: runs, sizes: sz}
	start := time.Now()
	var rows []row
	steps := map[string]func() ([]row, error){"big": b.bigZone, "bigger": b.biggerZone, "zones": b.manyZones, "vet": b.vetRows, "tenants": b.tenantsCase}
	for _, c := range cases {
		step, ok := steps[c]
		if !ok {
			return fmt.Errorf("--cases: no case %q; the cases are big, bigger, zones, vet and tenants", c)
		}
		r, err := step()
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if cue == "" {
		fmt.Println("cue vet: skipped, the cue CLI is not on PATH (make bench installs it: go install cuelang.org/go/cmd/cue@v0.17.1)")
	}
	fmt.Printf("site against the raw PowerDNS API and cue vet -c: median of %d runs on %d CPUs, %s in all\n\n",
		runs, runtime.NumCPU(), time.Since(start).Round(time.Second))
	return printTable(os.Stdout, rows)
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// BenchmarkUndoRoundTripPowerDNS measures site undo of an apply that
// updated 100, deleted 50 and created 50 of a 200-record-set zone and
// swapped a CNAME for an A, against a real PowerDNS: the time and the
// API requests of one undo (the apply it undoes is not timed). Its
// numbers are in site help undo.
func BenchmarkUndoRoundTripPowerDNS(b *testing.B) {
	srv := pdnstest.New(b, pdnstest.Options{})
	b.Setenv("PDNS_API_KEY", srv.APIKey)
	b.Setenv("NO_COLOR", "1")
	const zone = "bench-undo.example.test"
	dir, locks := b.TempDir(), filepath.Join(b.TempDir(), "locks")
	site := fmt.Sprintf("package site\n\nproviders: pdns: powerdns: {url: %q, api_key: env: \"PDNS_API_KEY\", dns: %q}\n"+
		"tenants: office1: {domains: [%q], providers: [\"pdns\"], hosts: []}\nlocks: dir: %q\n", srv.URL, srv.DNSAddr, zone, locks)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("site.cue", site)
	spec := func(v2 bool) string {
		var r strings.Builder
		for i := range 200 {
			switch {
			case v2 && i < 100:
				fmt.Fprintf(&r, "\t\t\th%d: A: [\"198.51.100.%d\"]\n", i, i%250)
			case v2 && i < 150: // deleted
			default:
				fmt.Fprintf(&r, "\t\t\th%d: A: [\"192.0.2.%d\"]\n", i, i%250)
			}
		}
		if v2 {
			for i := range 50 {
				fmt.Fprintf(&r, "\t\t\tn%d: A: [\"203.0.113.%d\"]\n", i, i)
			}
			r.WriteString("\t\t\twww: A: [\"192.0.2.7\"]\n")
		} else {
			r.WriteString("\t\t\twww: CNAME: \"h1." + zone + ".\"\n")
		}
		return fmt.Sprintf("package tenants\n\ntenants: office1: {\n\tdomain: %q\n\tdns: zones: %q: {\n\t\tprovider: \"pdns\"\n\t\tttl: 300\n\t\trecords: {\n%s\t\t}\n\t}\n}\n", zone, zone, r.String())
	}
	file := filepath.Join(dir, "office1.cue")
	site1 := func(args ...string) {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			b.Fatalf("site %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
	}
	loose := []string{"--yes", "--delete-threshold", "100", "--update-threshold", "100"}
	write("office1.cue", spec(false))
	site1(append([]string{"apply", file}, loose...)...)
	var reads, writes int
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		write("office1.cue", spec(true))
		site1(append([]string{"apply", file}, loose...)...)
		srv.ResetRequests(zone + ".")
		b.StartTimer()
		site1(append([]string{"undo", file}, loose...)...)
		b.StopTimer()
		c := srv.Requests(zone + ".")
		reads, writes = reads+c.GET, writes+c.Writes()
		write("office1.cue", spec(false))
		site1(append([]string{"apply", file}, loose...)...) // converged already: undo put v1 back
		b.StartTimer()
	}
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	// The size of the journal entry of the apply undone (201 changes).
	largest := int64(0)
	files, _ := os.ReadDir(filepath.Join(locks, "office1.journal"))
	for _, f := range files {
		if fi, err := f.Info(); err == nil {
			largest = max(largest, fi.Size())
		}
	}
	b.ReportMetric(float64(largest), "entry-bytes")
	b.ReportMetric(float64(writes)/float64(b.N), "writes/op")
}

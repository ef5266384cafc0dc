// Command sitebench measures site against the cue CLI on generated
// specs. Its one mode, vet, writes many tenants (package specgen) and
// the embedded schema into a temporary directory, then runs
//
//	site vet DIR                        (the site binary given by --site)
//	cue vet -c schema/*.cue DIR/*.cue   (when cue is on PATH)
//
// on the same files, several times each, and reports the median wall
// time and the peak resident memory of each command. make bench runs it
// with the cue CLI of the version site links (go install
// cuelang.org/go/cmd/cue@v0.17.1).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/site-tools/site/compiler/specgen"
	"github.com/site-tools/site/schema"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "vet" {
		fmt.Fprintln(os.Stderr, "usage: sitebench vet [--site PATH] [--cue PATH] [--tenants N] [--records N] [--runs N]")
		os.Exit(2)
	}
	fl := flag.NewFlagSet("vet", flag.ExitOnError)
	site := fl.String("site", "bin/site", "the site binary to measure")
	cue := fl.String("cue", "cue", "the cue CLI to compare with (skipped when not found)")
	tenants := fl.Int("tenants", 1000, "tenants to generate, one file each")
	records := fl.Int("records", 50, "records per tenant")
	runs := fl.Int("runs", 3, "runs of each command; the median is reported")
	_ = fl.Parse(os.Args[2:])
	if err := vet(*site, *cue, *tenants, *records, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "sitebench:", err)
		os.Exit(1)
	}
}

func vet(site, cue string, tenants, records, runs int) error {
	dir, err := os.MkdirTemp("", "sitebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	specs := filepath.Join(dir, "tenants")
	schemaDir := filepath.Join(dir, "schema")
	for _, d := range []string{specs, schemaDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	files, size, err := specgen.Write(specs, tenants, records)
	if err != nil {
		return err
	}
	schemaFiles, err := writeSchema(schemaDir)
	if err != nil {
		return err
	}
	fmt.Printf("vet: %d tenants x %d records, %d files, %.1f MB; median of %d runs on %d CPUs\n",
		tenants, records, len(files), float64(size)/1e6, runs, runtime.NumCPU())

	siteRes, err := measure(runs, site, "vet", specs)
	if err != nil {
		return fmt.Errorf("site vet: %w", err)
	}
	report("site vet", siteRes)

	cuePath, err := exec.LookPath(cue)
	if err != nil {
		fmt.Printf("%-12s skipped: %s is not on PATH (make bench installs it: go install cuelang.org/go/cmd/cue@v0.17.1)\n", "cue vet -c", cue)
		return nil
	}
	args := append([]string{"vet", "-c"}, schemaFiles...)
	cueRes, err := measure(runs, cuePath, append(args, files...)...)
	if err != nil {
		return fmt.Errorf("cue vet -c: %w", err)
	}
	report("cue vet -c", cueRes)
	fmt.Printf("site vet / cue vet: %.2fx the wall time, %.2fx the peak memory\n",
		siteRes.wall.Seconds()/cueRes.wall.Seconds(), float64(siteRes.maxRSS)/float64(cueRes.maxRSS))
	return nil
}

// writeSchema copies the embedded schema next to the specs, for cue vet.
func writeSchema(dir string) ([]string, error) {
	names, err := fs.Glob(schema.FS, "*.cue")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		data, err := fs.ReadFile(schema.FS, n)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

type result struct {
	wall   time.Duration
	maxRSS int64 // bytes
}

// measure runs the command runs times and returns the median wall time
// and the median peak RSS. A run that fails is an error: timing a
// command that rejected its input would measure the wrong thing.
func measure(runs int, name string, args ...string) (result, error) {
	var walls []time.Duration
	var rss []int64
	for range runs {
		cmd := exec.Command(name, args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = nil, &stderr
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return result{}, fmt.Errorf("%v\n%s", err, tail(stderr.Bytes()))
			}
			return result{}, err
		}
		walls = append(walls, wall)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = append(rss, ru.Maxrss*1024) // Linux reports KiB
		}
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	sort.Slice(rss, func(i, j int) bool { return rss[i] < rss[j] })
	r := result{wall: walls[len(walls)/2]}
	if len(rss) > 0 {
		r.maxRSS = rss[len(rss)/2]
	}
	return r, nil
}

func report(name string, r result) {
	fmt.Printf("%-12s wall %6.2f s   peak RSS %5.0f MB\n", name, r.wall.Seconds(), float64(r.maxRSS)/(1<<20))
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

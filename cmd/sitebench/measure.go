package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// samplesOut, when set (--samples), receives every run of a command,
// one tab-separated line each: the table shows medians only, and on
// a shared machine the spread and the CPU time are what tell a slower
// build from a busier minute.
var samplesOut io.Writer

// sample is one measured run: wall time, CPU time (user + system, of
// the process and the children it waited for) and peak resident memory.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // bytes; 0 when not measured (an in-process floor)
}

func (s sample) String() string {
	out := fmt.Sprintf("%.2f s", s.wall.Seconds())
	if s.rss > 0 {
		out += fmt.Sprintf(" / %.0f MB", float64(s.rss)/(1<<20))
	}
	return out
}

// command is a program to measure and how to run it.
type command struct {
	env  []string // added to this process's environment
	dir  string
	name string
	args []string
	// ok lists exit codes besides 0 that mean success.
	ok []int
}

// oneCore runs c pinned to CPU 0 (taskset), so that Go and cue see one
// core. It reports false when taskset is missing.
func oneCore(c command) (command, bool) {
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return c, false
	}
	c.args = append([]string{"-c", "0", c.name}, c.args...)
	c.name = ts
	return c, true
}

// run runs c once. A run that fails is an error: timing a command that
// refused its input would measure the wrong thing.
func (c command) run() (sample, error) {
	cmd := exec.Command(c.name, c.args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), c.env...)
	var stderr, stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ee *exec.ExitError
	if errors.As(err, &ee) && slices.Contains(c.ok, ee.ExitCode()) {
		err = nil
	}
	if err != nil {
		return sample{}, fmt.Errorf("%s %v: %v\n%s%s", c.name, c.args, err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	s := sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rss = ru.Maxrss * 1024 // Linux reports KiB
	}
	if samplesOut != nil {
		writeSample(samplesOut, c, s)
	}
	return s, nil
}

// writeSample writes s, the run of c, as one line: the workspace, the
// command, wall and CPU seconds and peak memory in MB.
func writeSample(w io.Writer, c command, s sample) {
	fmt.Fprintf(w, "%s\t%s %s\t%.3f\t%.3f\t%.0f\n", filepath.Base(c.dir), filepath.Base(c.name),
		strings.Join(c.args, " "), s.wall.Seconds(), s.cpu.Seconds(), float64(s.rss)/(1<<20))
}

// measure runs f runs times, prep before each outside the timing, and
// returns the median of each measure.
func measure(runs int, prep func() error, f func() (sample, error)) (sample, error) {
	var all []sample
	for range runs {
		if prep != nil {
			if err := prep(); err != nil {
				return sample{}, err
			}
		}
		s, err := f()
		if err != nil {
			return sample{}, err
		}
		all = append(all, s)
	}
	return median(all), nil
}

// median takes the median wall time, CPU time and peak memory apart.
func median(all []sample) sample {
	pick := func(get func(sample) int64) int64 {
		v := make([]int64, len(all))
		for i, s := range all {
			v[i] = get(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		wall: time.Duration(pick(func(s sample) int64 { return int64(s.wall) })),
		cpu:  time.Duration(pick(func(s sample) int64 { return int64(s.cpu) })),
		rss:  pick(func(s sample) int64 { return s.rss }),
	}
}

func tail(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

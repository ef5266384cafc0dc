package plan

// This file holds what a saved plan records about its inputs, so that
// site apply --plan needs nothing but the plan file: the spec paths and
// a hash of every file they named, and the options that shaped the plan.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Spec is what a plan was computed from.
type Spec struct {
	// Paths are the PATH arguments as given (or the default), relative to
	// the directory site diff ran in.
	Paths []string `json:"paths"`
	// Files maps every file the paths named to "sha256:" and the hex
	// SHA-256 of its content.
	Files map[string]string `json:"files"`
}

// Options are the flags besides the scope that changed the plan.
type Options struct {
	// Restart lists the TENANT/VM names given with --restart, sorted.
	Restart []string `json:"restart,omitempty"`
	// DeleteThreshold is --delete-threshold, in percent.
	DeleteThreshold int `json:"delete_threshold"`
	// UpdateThreshold is --update-threshold, in percent; nil in a plan
	// saved before the flag was, which planned with its default.
	UpdateThreshold *int `json:"update_threshold,omitempty"`
	// Acks are the gates acknowledged with --ack that deferred a step
	// shown in the plan (e.g. GATE-SECRET-UNREACHABLE), sorted; apply
	// --plan defers the same steps.
	Acks []Gate `json:"acks,omitempty"`
}

// HashSpec reads files (what paths named) and records their hashes.
func HashSpec(paths, files []string) (*Spec, error) {
	s := &Spec{Paths: paths, Files: make(map[string]string, len(files))}
	for _, f := range files {
		h, err := hashFile(f)
		if err != nil {
			return nil, err
		}
		s.Files[f] = h
	}
	return s, nil
}

func hashFile(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("hashing spec file %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// SpecChangedError means the spec files a plan was saved from are no
// longer what they were: applying would carry out changes nobody saw.
type SpecChangedError struct {
	Changed, Removed, Added []string // file names, sorted
}

func (e *SpecChangedError) Error() string {
	var what []string
	for _, f := range e.Changed {
		what = append(what, fileName(f)+" changed")
	}
	for _, f := range e.Removed {
		what = append(what, fileName(f)+" is no longer there (paths are relative to where site diff ran)")
	}
	for _, f := range e.Added {
		what = append(what, fileName(f)+" is new")
	}
	return fmt.Sprintf("the plan is stale: the specs changed since it was saved: %s; run site diff --out again", strings.Join(what, "; "))
}

// CheckFiles hashes files again (what s.Paths name now) and returns a
// *SpecChangedError naming each that differs from s.
func (s *Spec) CheckFiles(files []string) error {
	e := &SpecChangedError{}
	now := map[string]bool{}
	for _, f := range files {
		now[f] = true
		want, ok := s.Files[f]
		if !ok {
			e.Added = append(e.Added, f)
			continue
		}
		got, err := hashFile(f)
		if err != nil {
			return err
		}
		if got != want {
			e.Changed = append(e.Changed, f)
		}
	}
	for f := range s.Files {
		if !now[f] {
			e.Removed = append(e.Removed, f)
		}
	}
	if len(e.Changed)+len(e.Removed)+len(e.Added) == 0 {
		return nil
	}
	sort.Strings(e.Changed)
	sort.Strings(e.Removed)
	sort.Strings(e.Added)
	return e
}

// fileName shows the name of a spec file as it is, or Go-quoted when it
// holds anything but printable characters: the names under tenants/
// are the tenants' to choose, and one with a newline would start a
// line of its own in the log of the job that applies.
func fileName(f string) string {
	if q := strconv.Quote(f); q[1:len(q)-1] != f {
		return q
	}
	return f
}

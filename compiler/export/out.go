package export

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// This file is what site export says beside the files it writes, and
// the check before export --all reads anything.

// CheckOut refuses, before any request, a file out that is there
// when force is false: it is someone's spec (its VMs, networks,
// comments), and export would replace all of it.
func CheckOut(out string, force bool) error {
	if out == "" || force {
		return nil
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("--out %s exists; export writes a whole tenant file and would replace it: choose a new file, or add --force to replace it", out)
	}
	return nil
}

// CheckAllOut makes the directories of files (what export --all writes
// in out) and refuses, before any zone is read, when one of files is
// there already and force is false.
func CheckAllOut(out string, files []string, force bool) error {
	var there []string
	for _, f := range files {
		if _, err := os.Lstat(f); err == nil {
			there = append(there, f)
		}
	}
	if len(there) > 0 && !force {
		return fmt.Errorf("--out %s holds %s export --all would replace (%s); nothing was read or written: choose a new directory, or add --force to replace them", out, words.Count(len(there), "file"), strings.Join(there, ", "))
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
	}
	return nil
}

// WriteNotes says on w, before a's spec for tenant is written, what the
// operator's file (as d says of it) needs for it, what was left out and
// vet's warnings; a zone file (zoneFile) needs no lines.
func (a *Adoption) WriteNotes(w io.Writer, d Declared, tenant string, zoneFile bool) {
	switch {
	case zoneFile:
	case len(a.Site) == 0:
		fmt.Fprintf(w, "%s grants tenant %s zone %s on provider %s already; it needs no lines\n", d.In, tenant, a.Zone.Name, d.Provider.Name)
	case d.In != "":
		fmt.Fprintf(w, "%s declares this server as provider %s; it needs these lines to grant it:\n\n%s\n", d.In, d.Provider.Name, a.Site)
	default:
		fmt.Fprintf(w, "the operator's site.cue needs these lines for it:\n\n%s\n", a.Site)
	}
	for _, l := range a.Skipped {
		fmt.Fprintln(w, "left out:", l)
	}
	for _, warning := range a.Warnings {
		fmt.Fprintln(w, "warning:", warning)
	}
}

// CheckFlags refuses what site export's flags cannot mean together,
// before anything is read: the format, --adopt of a zone file, and
// --all beside a zone or without a directory.
func CheckFlags(format string, adopt, all bool, zone, domain, out string) error {
	switch {
	case format != "cue" && format != "zone":
		return fmt.Errorf("--format %q: give cue (the tenant spec) or zone (a BIND master file)", format)
	case format == "zone" && adopt:
		return fmt.Errorf("--adopt marks records for the tenant spec export writes; --format zone writes none: export the spec to adopt")
	case all && (zone != "" || domain != ""):
		return fmt.Errorf("--all exports every zone of the provider: give no --zone or --domain with it")
	case all && out == "":
		return fmt.Errorf("--all writes a file per zone: name their directory with --out DIR")
	}
	return nil
}

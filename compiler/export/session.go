package export

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// Session is one site export's work once the server is open: read a
// zone, render it in the format asked for, write it with what stderr
// must say beside it, and mark it (with --adopt). The command keeps the
// flags, the backends and the exit codes.
type Session struct {
	Live   Live
	Decl   Declared
	Tenant string
	Domain string
	Format string // cue or zone
	Adopt  bool
	Force  bool
	Stdout io.Writer
	Stderr io.Writer
}

// Read reads zone and renders it in the format asked for (a.Source),
// the spec to be written to out ("" for stdout).
func (s *Session) Read(ctx context.Context, zone, out string) (*Adoption, error) {
	if s.Format == "zone" {
		out = "" // no spec is written there: its vet must not be named after the file
	}
	a, err := Read(ctx, s.Live, Request{Tenant: s.Tenant, Zone: zone, Domain: s.Domain,
		Provider: s.Decl.Provider, ProviderDeclared: s.Decl.In != "", Operator: s.Decl.File, Out: out})
	if err != nil {
		return nil, err
	}
	if s.Format == "zone" {
		if a.Source, err = a.ZoneFile(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Write says what site.cue needs, what was left out and vet's warnings,
// then writes a.Source to out (stdout when "").
func (s *Session) Write(a *Adoption, out string) error {
	a.WriteNotes(s.Stderr, s.Decl, s.Tenant, s.Format == "zone")
	if out == "" {
		_, err := s.Stdout.Write(a.Source)
		return err
	}
	if err := WriteFile(out, a.Source, s.Force); err != nil {
		return err
	}
	fmt.Fprintf(s.Stderr, "wrote %s: %d RRsets of zone %s for tenant %s\n", out, len(a.Zone.RRsets), a.Zone.Name, s.Tenant)
	return nil
}

// Mark marks a's records as the tenant's with --adopt, and otherwise
// says that nothing was marked.
func (s *Session) Mark(ctx context.Context, a *Adoption) error {
	switch {
	case s.Format == "zone":
		return nil // read-only: --adopt is refused with it
	case !s.Adopt:
		// Some may carry the tenant's marker already (an earlier export);
		// the snapshot does not say which, so no count is given.
		fmt.Fprintf(s.Stderr, "nothing marked on the server (read-only; --adopt marks): site diff shows each RRset not yet marked for tenant %s as adopt until site apply marks it\n", s.Tenant)
		return nil
	}
	n, err := a.Mark(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Stderr, "marked %d RRsets as owned by tenant %s (comments only; served data unchanged)\n", n, s.Tenant)
	return nil
}

// All is site export --all once the zones are listed: every zone of
// names, one file each in the directory out (ZoneFileNames). No file
// there is replaced without Force, and none is written when one would
// be (CheckAllOut). A zone that cannot be exported is said and the
// others are still written; the error names those not exported.
func (s *Session) All(ctx context.Context, names []string, out string) error {
	files := ZoneFileNames(out, names, s.Format, s.Tenant)
	if err := CheckAllOut(out, files, s.Force); err != nil {
		return err
	}
	var failed []string
	for i, zone := range names {
		a, err := s.Read(ctx, zone, files[i])
		if err == nil {
			err = s.Write(a, files[i])
		}
		if err == nil {
			err = s.Mark(ctx, a)
		}
		if err != nil {
			fmt.Fprintf(s.Stderr, "zone %s: not exported: %v\n", zone, err)
			failed = append(failed, zone)
		}
	}
	fmt.Fprintf(s.Stderr, "exported %s of provider %s into %s\n", words.Count(len(names)-len(failed), "zone"), s.Decl.Provider.Name, out)
	if len(failed) > 0 {
		return fmt.Errorf("%d of %s could not be exported (%s; each said above); the others are written", len(failed), words.Count(len(names), "zone"), strings.Join(failed, ", "))
	}
	return nil
}

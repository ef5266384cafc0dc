package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/export"
)

// exportSession is one site export's backends, the server read and what
// the operator's file says of it; it reads, writes and marks zones and
// says on stderr what it did.
type exportSession struct {
	req    exportRequest
	bk     *runBackends
	live   backends.BoundExporter
	decl   export.Declared
	stdout io.Writer
	stderr io.Writer
}

// openExport opens the backends and reads the credential; out is where
// the (first) file goes, for finding the operator's file beside it.
func openExport(cmd *cobra.Command, req exportRequest, out string) (*exportSession, error) {
	run := backends.NewRun()
	bk := providers.Open(run)
	s := &exportSession{req: req, bk: bk, stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()}
	x, _ := bk.Providers[req.provider].(backends.ZoneExporter)
	if x == nil {
		s.close()
		return nil, fmt.Errorf("this build of site has no %s backend that can export", req.provider)
	}
	if err := readSecret(cmd.Context(), bk, run, req.provider, req.byName, req.secret); err != nil {
		s.close()
		return nil, err
	}
	s.live = backends.BoundExporter{X: x, Run: run}
	if req.byName != "" {
		s.decl = export.Declared{Provider: req.where, In: req.declaredIn, File: req.operator}
	} else {
		s.decl = export.Settle(req.provider, req.where, out)
	}
	if s.decl.Note != "" {
		fmt.Fprintln(s.stderr, "note:", s.decl.Note)
	}
	return s, nil
}

func (s *exportSession) close() { closeBackends(s.bk, s.stderr) }

// read reads zone and renders it in the format asked for (a.Source),
// the spec to be written to out ("" for stdout).
func (s *exportSession) read(ctx context.Context, req exportRequest, zone, out string) (*export.Adoption, error) {
	if req.format == "zone" {
		out = "" // no spec is written there: its vet must not be named after the file
	}
	a, err := export.Read(ctx, s.live, export.Request{Tenant: req.tenant, Zone: zone, Domain: req.domain,
		Provider: s.decl.Provider, ProviderDeclared: s.decl.In != "", Operator: s.decl.File, Out: out})
	if err != nil {
		return nil, err
	}
	if req.format == "zone" {
		if a.Source, err = a.ZoneFile(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// write says what site.cue needs, what was left out and vet's warnings,
// then writes a.Source to out (stdout when "").
func (s *exportSession) write(a *export.Adoption, out string) error {
	req, stderr := s.req, s.stderr
	a.WriteNotes(stderr, s.decl, req.tenant, req.format == "zone")
	if out == "" {
		_, err := s.stdout.Write(a.Source)
		return err
	}
	if err := export.WriteFile(out, a.Source, req.force); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d RRsets of zone %s for tenant %s\n", out, len(a.Zone.RRsets), a.Zone.Name, req.tenant)
	return nil
}

// mark marks a's records as the tenant's with --adopt, and otherwise
// says that nothing was marked.
func (s *exportSession) mark(ctx context.Context, a *export.Adoption) error {
	switch {
	case s.req.format == "zone":
		return nil // read-only: --adopt is refused with it
	case !s.req.adopt:
		// Some may carry the tenant's marker already (an earlier export);
		// the snapshot does not say which, so no count is given.
		fmt.Fprintf(s.stderr, "nothing marked on the server (read-only; --adopt marks): site diff shows each RRset not yet marked for tenant %s as adopt until site apply marks it\n", s.req.tenant)
		return nil
	}
	n, err := a.Mark(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.stderr, "marked %d RRsets as owned by tenant %s (comments only; served data unchanged)\n", n, s.req.tenant)
	return nil
}

// exportAll is site export --all: every zone the provider lists, one
// file each in --out (ZONE/TENANT.cue, or ZONE.zone with --format zone:
// see export.ZoneFileNames). No
// file there is replaced without --force, and none is written when one
// would be; a zone that cannot be exported is said and the others are
// still written.
func exportAll(cmd *cobra.Command, req exportRequest) error {
	ctx := cmd.Context()
	s, err := openExport(cmd, req, filepath.Join(req.out, req.tenant+".cue"))
	if err != nil {
		return withCode(exitError, err)
	}
	defer s.close()
	zones, err := s.live.Zones(ctx, s.decl.Provider)
	if err != nil {
		return withCode(exitError, fmt.Errorf("listing the zones of provider %s: %w", s.decl.Provider.Name, err))
	}
	names := make([]string, len(zones))
	for i, z := range zones {
		names[i] = z.Name
	}
	files := export.ZoneFileNames(req.out, names, req.format, req.tenant)
	if err := export.CheckAllOut(req.out, files, req.force); err != nil {
		return withCode(exitError, err)
	}
	var failed []string
	for i, zone := range names {
		a, err := s.read(ctx, req, zone, files[i])
		if err == nil {
			err = s.write(a, files[i])
		}
		if err == nil {
			err = s.mark(ctx, a)
		}
		if err != nil {
			fmt.Fprintf(s.stderr, "zone %s: not exported: %v\n", zone, err)
			failed = append(failed, zone)
		}
	}
	fmt.Fprintf(s.stderr, "exported %s of provider %s into %s\n", count(len(names)-len(failed), "zone"), s.decl.Provider.Name, req.out)
	if len(failed) > 0 {
		return withCode(exitError, fmt.Errorf("%d of %s could not be exported (%s; each said above); the others are written", len(failed), count(len(names), "zone"), strings.Join(failed, ", ")))
	}
	return nil
}

package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/providers"
	"github.com/site-tools/site/compiler/export"
)

// exportSession is one site export's backends and the server read;
// export.Session reads, writes and marks its zones.
type exportSession struct {
	export.Session
	bk   *runBackends
	live backends.BoundExporter
}

// openExport opens the backends and reads the credential; out is where
// the (first) file goes, for finding the operator's file beside it.
func openExport(cmd *cobra.Command, req exportRequest, out string) (*exportSession, error) {
	one, err := providers.OpenOne[backends.ZoneExporter](cmd.Context(), req.provider, "export", req.byName, req.secret)
	if err != nil {
		return nil, err
	}
	s := &exportSession{bk: one.Set, live: backends.BoundExporter{X: one.B, Run: one.Run}, Session: export.Session{Tenant: req.tenant,
		Domain: req.domain, Format: req.format, Adopt: req.adopt, Force: req.force, Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}}
	s.Live = s.live
	if req.byName != "" {
		s.Decl = export.Declared{Provider: req.where, In: req.declaredIn, File: req.operator}
	} else {
		s.Decl = export.Settle(req.provider, req.where, out)
	}
	if s.Decl.Note != "" {
		fmt.Fprintln(s.Stderr, "note:", s.Decl.Note)
	}
	return s, nil
}

func (s *exportSession) close() { closeBackends(s.bk, s.Stderr) }

// exportAll is site export --all: every zone the provider lists, one
// file each in --out (export.Session.All).
func exportAll(cmd *cobra.Command, req exportRequest) error {
	ctx := cmd.Context()
	s, err := openExport(cmd, req, filepath.Join(req.out, req.tenant+".cue"))
	if err != nil {
		return withCode(exitError, err)
	}
	defer s.close()
	zones, err := s.live.Zones(ctx, s.Decl.Provider)
	if err != nil {
		return withCode(exitError, fmt.Errorf("listing the zones of provider %s: %w", s.Decl.Provider.Name, err))
	}
	names := make([]string, len(zones))
	for i, z := range zones {
		names[i] = z.Name
	}
	if err := s.All(ctx, names, req.out); err != nil {
		return withCode(exitError, err)
	}
	return nil
}

package export

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// This file is `site export`'s flow: read a live zone through its
// backend, render it, vet it, and (once the caller has written the spec)
// mark its records as the tenant's. It is the one place data flows from
// the live systems back to CUE, so it sits beside the renderer and
// reaches the backend only through backends.ZoneExporter.

// Request names a live zone to adopt, as a user gave it.
type Request struct {
	Tenant string // the tenant the records will belong to
	Zone   string // the zone's name, with or without the trailing dot
	Domain string // the tenant's domain; the zone's when empty
	// Provider is where the zone lives, credentials as references.
	Provider model.Provider
	// ProviderDeclared: the operator's site.cue declares Provider under
	// Provider.Name already; the lines for it only grant it.
	ProviderDeclared bool
	// Operator is the operator's site.cue, nil when there is none (or it
	// does not load). What it grants another tenant inside the zone is
	// left out beyond the delegation, and so is a record that answers
	// for such a name from above it, as site vet would refuse them.
	Operator *compiler.OperatorFile
}

// Adoption is a live zone read and rendered as a spec that passes site
// vet; Mark then marks its records as the tenant's.
type Adoption struct {
	Zone   *model.Zone // canonical, with the RRsets read
	Source []byte      // the tenant spec, vetted
	// Site holds the lines the operator's site.cue needs for Source: the
	// provider and the tenant's grant.
	Site []byte
	// Skipped says, one line each, what was left out and why; site never
	// touches what it left out.
	Skipped []string

	exporter backends.ZoneExporter
	run      *backends.Run
	redactor *backends.Redactor
}

// Read checks req, reads the zone through x, renders the tenant spec and
// vets it. Nothing is marked: the caller writes Source, then calls Mark.
// Errors never carry a credential value, even one a backend quoted.
func Read(ctx context.Context, x backends.ZoneExporter, req Request, run *backends.Run) (*Adoption, error) {
	// The tenant's name goes into the owner marker on every exported
	// RRset: a name no spec can hold would mark the zone for nobody.
	if err := compiler.CheckTenantName(req.Tenant); err != nil {
		return nil, fmt.Errorf("--tenant: %w", err)
	}
	name, err := dnsname.Canonical(strings.TrimSuffix(req.Zone, ".")+".", "")
	if err != nil {
		return nil, fmt.Errorf("--zone: %w", err)
	}
	if req.Domain != "" {
		if _, err := dnsname.Canonical(req.Domain, "."); err != nil {
			return nil, fmt.Errorf("--domain: %w", err)
		}
	}
	z := &model.Zone{Name: name, Tenant: req.Tenant, Provider: req.Provider}
	scope := &graph.Graph{Steps: []*graph.Step{{ID: graph.ZoneStepID(name), Phase: plan.PhaseDNS, Zone: z}}}
	a := &Adoption{Zone: z, exporter: x, run: run, redactor: backends.NewRedactor(scope, run)}
	snap, err := x.Export(ctx, z, run)
	if err != nil {
		return nil, a.redact(err)
	}
	// An RRset the language cannot say (a proxied CNAME at a Cloudflare
	// apex, read as an ALIAS) is left out and listed, as every exporter
	// leaves out what it knows it cannot say, rather than failing the
	// whole export on one record.
	// So is what site.cue grants another tenant inside the zone, and
	// what answers for such a name from above it (a DNAME, a wildcard):
	// the spec would not pass site vet with it, and --adopt must not
	// mark it as this tenant's.
	owner := &model.Zone{Name: name, Tenant: req.Tenant, RRsets: snap.RRsets}
	kept := make([]*model.RRset, 0, len(snap.RRsets))
	for _, r := range snap.RRsets {
		if err := Check(*r); err != nil {
			snap.Skipped = append(snap.Skipped, err.Error()+"; left as it is, site will not touch it")
			continue
		}
		if req.Operator != nil {
			// Only a grant inside the zone: one of the zone itself is
			// for the grant's lines and site vet to judge.
			if held, tenant, away := compiler.AnotherTenants(r, owner, req.Operator.GrantHolder); away && held != name && dnsname.IsSubdomain(held, name) {
				why := fmt.Sprintf("lies in %s, which site.cue grants to tenant %s, beyond the delegation this zone may hold", held, tenant)
				if !dnsname.IsSubdomain(r.Name, held) { // held is an RFC 2317 block
					why = fmt.Sprintf("is at or below the reverse name of an address in the RFC 2317 block %s, which site.cue grants to tenant %s, and is not the CNAME into the block this zone may hold there", held, tenant)
				}
				snap.Skipped = append(snap.Skipped, fmt.Sprintf("%s %s %s; left as it is, site will not touch it", r.Name, r.Type, why))
				continue
			}
		}
		kept = append(kept, r)
	}
	if req.Operator != nil {
		// Judged against what is kept, as vet judges the spec: a wildcard
		// needs the NS at the name it would cover.
		judged := &model.Zone{Name: name, Tenant: req.Tenant, RRsets: kept}
		kept = make([]*model.RRset, 0, len(judged.RRsets))
		for _, r := range judged.RRsets {
			if why, covers := req.Operator.CoversGranted(judged, r); covers {
				snap.Skipped = append(snap.Skipped, fmt.Sprintf("%s %s: %s; left as it is, site will not touch it", r.Name, r.Type, why))
				continue
			}
			kept = append(kept, r)
		}
	}
	snap.RRsets = kept
	rrsets := make([]model.RRset, len(snap.RRsets))
	for i, r := range snap.RRsets {
		rrsets[i] = *r
	}
	ez := Zone{Tenant: req.Tenant, Domain: req.Domain, Zone: name, Provider: req.Provider, ProviderDeclared: req.ProviderDeclared, RRsets: rrsets, DNSSEC: snap.DNSSEC}
	if a.Source, err = Render(ez); err != nil {
		return nil, err
	}
	if a.Site, err = RenderSite(ez); err != nil {
		return nil, err
	}
	// Vetted before it is written or anything is marked: the spec site
	// export hands over must pass site vet as it is, with those lines
	// (and the provider they leave to site.cue, as it would be declared).
	site := a.Site
	if ez.ProviderDeclared {
		ez.ProviderDeclared = false
		if site, err = RenderSite(ez); err != nil {
			return nil, err
		}
	}
	if err := Vet(compiler.ConfigName, append([]byte("package site\n\n"), site...), req.Tenant+".cue", a.Source); err != nil {
		return nil, fmt.Errorf("the exported spec for tenant %s does not pass site vet, so nothing was written or marked: %w", req.Tenant, err)
	}
	z.RRsets = snap.RRsets
	a.Skipped = snap.Skipped
	return a, nil
}

// Mark puts the tenant's owner marker on every RRset read, without
// changing what the zone serves, and returns how many it marked. It
// refuses, marking nothing, when the zone changed since Read.
func (a *Adoption) Mark(ctx context.Context) (int, error) {
	n, err := a.exporter.MarkOwned(ctx, a.Zone, a.run)
	if err != nil {
		return 0, a.redact(fmt.Errorf("the spec is written, but adopting the zone failed: %w", err))
	}
	return n, nil
}

// redact scrubs credential values from err's text and keeps err as the
// cause, for errors.Is and errors.As.
func (a *Adoption) redact(err error) error {
	return redactedError{a.redactor.Redact(err.Error()), err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// Vet checks a spec site generated (site init's scaffold, an exported
// zone) with the operator's file it needs, as site vet would, and
// returns vet's messages as one error, each once, without positions:
// they would point into files not yet written.
func Vet(siteName string, site []byte, name string, src []byte) error {
	_, err := compiler.LoadSource(siteName, site, name, src)
	var diags compiler.Diagnostics
	if !errors.As(err, &diags) {
		return err
	}
	var msgs []string
	seen := map[string]bool{}
	for _, d := range diags {
		if !seen[d.Msg] {
			seen[d.Msg] = true
			msgs = append(msgs, d.Msg)
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

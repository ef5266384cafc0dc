package export

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/dnsname"
	"github.com/site-tools/site/compiler/model"
)

// This file is `site export`'s flow: read a live zone through its
// backend, render it, vet it, and (once the caller has written the spec)
// mark its records as the tenant's. It is the one place data flows from
// the live systems back to CUE, so it sits beside the renderer and
// reaches the backend only through Live (backends.BoundExporter is one):
// nothing under compiler imports backends.

// Live is a DNS server's side of an export: it reads a zone as a
// snapshot and marks the records read as the tenant's without changing
// what the zone serves. Its errors carry no credential value.
type Live interface {
	Export(ctx context.Context, zone *model.Zone) (*model.ZoneSnapshot, error)
	MarkOwned(ctx context.Context, zone *model.Zone) (int, error)
}

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
	// for such a name from above it, as site vet would refuse them; and
	// the spec is vetted with it as site vet of Out would vet it.
	Operator *compiler.OperatorFile
	// Out is the file the caller will write the spec to, "" for stdout.
	// With Operator, the tenant files beside it are loaded for the vet.
	Out string
}

// Adoption is a live zone read and rendered as a spec that passes site
// vet; Mark then marks its records as the tenant's.
type Adoption struct {
	Zone   *model.Zone // canonical, with the RRsets read
	Source []byte      // the tenant spec, vetted
	// Site holds the lines the operator's site.cue needs for Source: the
	// provider and the tenant's grant; nil when Request.Operator declares
	// the provider and grants the tenant it and the zone already.
	Site []byte
	// Skipped says, one line each, what was left out and why; site never
	// touches what it left out.
	Skipped []string
	// Warnings are site vet's warnings for Source, one line each
	// ("path: message", positioned in Request.Out when there is one):
	// what passes vet but most likely does not do what was meant.
	Warnings []string

	live Live
	apex []*model.RRset // the SOA and apex NS as read, for ZoneFile
}

// Read checks req, reads the zone through x, renders the tenant spec and
// vets it (with req.Operator, as site vet of req.Out would: see
// vetWithOperator). Nothing is marked: the caller writes Source, then
// calls Mark.
// Errors never carry a credential value, even one a backend quoted:
// x redacts its own.
func Read(ctx context.Context, x Live, req Request) (*Adoption, error) {
	name, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	z := &model.Zone{Name: name, Tenant: req.Tenant, Provider: req.Provider}
	a := &Adoption{Zone: z, live: x}
	snap, err := x.Export(ctx, z)
	if err != nil {
		return nil, err
	}
	a.apex = snap.Apex
	leaveOut(req, name, snap)
	rrsets := make([]model.RRset, len(snap.RRsets))
	for i, r := range snap.RRsets {
		rrsets[i] = *r
	}
	ez := Zone{Tenant: req.Tenant, Domain: req.Domain, Zone: name, Provider: req.Provider, ProviderDeclared: req.ProviderDeclared, RRsets: rrsets, DNSSEC: snap.DNSSEC}
	if a.Source, err = Render(ez); err != nil {
		return nil, err
	}
	lines, err := RenderSite(ez)
	if err != nil {
		return nil, err
	}
	domain := name
	if req.Domain != "" {
		domain, _ = dnsname.Canonical(req.Domain, ".") // checked above
	}
	if !req.ProviderDeclared || !req.Operator.Holds(req.Tenant, req.Provider.Name, name, domain) {
		a.Site = lines
	}
	if err := vetExport(req, a, ez, lines); err != nil {
		return nil, err
	}
	z.RRsets = snap.RRsets
	a.Skipped = snap.Skipped
	return a, nil
}

// checkRequest checks the names req gives and returns the zone's,
// canonical. The tenant's name goes into the owner marker on every
// exported RRset: a name no spec can hold would mark the zone for
// nobody.
func checkRequest(req Request) (string, error) {
	if err := compiler.CheckTenantName(req.Tenant); err != nil {
		return "", fmt.Errorf("--tenant: %w", err)
	}
	name, err := dnsname.Canonical(strings.TrimSuffix(req.Zone, ".")+".", "")
	if err != nil {
		return "", fmt.Errorf("--zone: %w", err)
	}
	if req.Domain != "" {
		if _, err := dnsname.Canonical(req.Domain, "."); err != nil {
			return "", fmt.Errorf("--domain: %w", err)
		}
	}
	return name, nil
}

// leaveOut drops from snap, a read of zone name, the RRsets the
// exported spec must not hold, and lists each in snap.Skipped.
func leaveOut(req Request, name string, snap *model.ZoneSnapshot) {
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
			if held, tenant, away := req.Operator.AnotherTenants(r, owner); away && held != name && dnsname.IsSubdomain(held, name) {
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
}

// vetExport vets the exported spec ez, with the site.cue lines it
// needs, before anything is written or marked, and keeps its warnings
// in a.
func vetExport(req Request, a *Adoption, ez Zone, lines []byte) error {
	// Vetted before it is written or anything is marked: the spec site
	// export hands over must pass site vet as it is, with those lines
	// (and the provider they leave to site.cue, as it would be declared).
	site := lines
	if ez.ProviderDeclared {
		ez.ProviderDeclared = false
		var err error
		if site, err = RenderSite(ez); err != nil {
			return err
		}
	}
	var warnings compiler.Diagnostics
	file := cmp.Or(req.Out, req.Tenant+".cue") // its warnings point into --out once written
	if err := vet(compiler.ConfigName, append([]byte("package site\n\n"), site...), file, a.Source, &warnings); err != nil {
		return fmt.Errorf("the exported spec for tenant %s does not pass site vet, so nothing was written or marked: %w", req.Tenant, err)
	}
	a.Warnings = warningLines(warnings, func(p model.Pos) bool { return req.Out != "" && p.File == req.Out })
	// That vet knows only this tenant's grant. What depends on the
	// operator's real file and the other tenants' (the name servers
	// site.cue lists for NS above another tenant's name, a delegation of
	// another tenant's zone as that zone names it) is vetted here, or
	// the spec would be written, and with --adopt its records marked,
	// and then fail site vet. Its warnings are site vet's.
	if req.Operator != nil {
		if err := vetWithOperator(req, a, lines); err != nil {
			return err
		}
	}
	return nil
}

// vetWithOperator vets a.Source as site vet of req.Out would once it is
// written: with the operator's file (and siteLines, the lines for it,
// while it does not grant the tenant, as the operator is asked to add
// them) and the tenant files beside req.Out. Its warnings go to
// a.Warnings, in place of those of the vet with the tenant's grant
// alone. Its error lists what vet refuses, with the positions in files
// that exist, and says what to do.
func vetWithOperator(req Request, a *Adoption, siteLines []byte) error {
	config, site := req.Operator.Source()
	lines := bytes.Count(site, []byte("\n")) + 1 // site.cue's own, before any added
	granted := req.Operator.Grants(req.Tenant)
	if !granted {
		site = append(append(slices.Clip(site), '\n'), siteLines...)
	}
	file := req.Out
	var warnings compiler.Diagnostics
	o := compiler.Options{Warn: func(ws compiler.Diagnostics) { warnings = ws }}
	var err error
	if file == "" {
		file = req.Tenant + ".cue"
		_, err = compiler.LoadSourceWith(config, site, file, a.Source, o)
	} else {
		_, err = compiler.LoadBesideWith(config, site, file, a.Source, o)
	}
	// Positions in the lines added point into lines site.cue does not
	// hold yet, and those in the spec, to stdout, into no file: the CUE
	// path says where in the spec. Written to req.Out, the spec is
	// there to point into.
	shown := func(p model.Pos) bool {
		return (p.File != file || req.Out != "") && (p.File != config || p.Line <= lines)
	}
	var diags compiler.Diagnostics
	switch {
	case err == nil:
		a.Warnings = warningLines(warnings, shown)
		return nil
	case !errors.As(err, &diags):
		return fmt.Errorf("the exported spec for tenant %s could not be vetted with %s, so nothing was written or marked: %w", req.Tenant, config, err)
	}
	// Nothing is written on an error: no position in the spec is shown.
	errShown := func(p model.Pos) bool { return p.File != file && shown(p) }
	var b strings.Builder
	checked := config + " and the tenant files beside it"
	switch {
	case req.Out == "" && granted:
		checked = config + "; without --out, no tenant files beside it"
	case req.Out == "":
		checked = config + " and the lines below added; without --out, no tenant files beside it"
	case !granted:
		checked = config + ", the lines below added, and the tenant files beside it"
	}
	if req.Out == "" {
		fmt.Fprintf(&b, "site vet would refuse the exported spec for tenant %s (checked with %s); nothing was written or marked:\n", req.Tenant, checked)
	} else {
		fmt.Fprintf(&b, "site vet of %s would refuse the exported spec for tenant %s (checked with %s); nothing was written or marked:\n", req.Out, req.Tenant, checked)
	}
	for _, d := range diags {
		if d.Warning {
			continue
		}
		b.WriteString("  " + message(d, errShown) + "\n")
	}
	b.WriteString("the spec says what the zone serves: do what vet asks (on the server, for the zone's own records; or in site.cue, or in the other tenant's file, as it says), then run site export again")
	if len(a.Site) > 0 {
		fmt.Fprintf(&b, "\nthe lines site.cue needs for tenant %s:\n\n%s", req.Tenant, a.Site)
	}
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

// message is d on one line, with only the positions shown says exist.
func message(d compiler.Diagnostic, shown func(model.Pos) bool) string {
	var at string
	if shown(d.Pos) {
		at = compiler.FormatPos(d.Pos) + ": "
	}
	d.Related = slices.DeleteFunc(slices.Clone(d.Related), func(p model.Pos) bool { return !shown(p) })
	return at + d.Message(nil)
}

// warningLines is ds, warnings, one line each, as message shows them.
func warningLines(ds compiler.Diagnostics, shown func(model.Pos) bool) []string {
	var out []string
	for _, d := range ds {
		out = append(out, message(d, shown))
	}
	return out
}

// ZoneFile returns the records of Source as a BIND master file
// (RenderZoneFile): site export --format zone.
func (a *Adoption) ZoneFile() ([]byte, error) {
	z := Zone{Tenant: a.Zone.Tenant, Zone: a.Zone.Name, Provider: a.Zone.Provider, RRsets: make([]model.RRset, len(a.Zone.RRsets)),
		Notes: []string{fmt.Sprintf("Zone %s as site export reads it for tenant %s: what the tenant language can say.", a.Zone.Name, a.Zone.Tenant)}}
	for i, r := range a.Zone.RRsets {
		z.RRsets[i] = *r
	}
	for _, r := range a.apex {
		z.Apex = append(z.Apex, *r)
	}
	return RenderZoneFile(z)
}

// Mark puts the tenant's owner marker on every RRset read, without
// changing what the zone serves, and returns how many it marked. It
// refuses, marking nothing, when the zone changed since Read.
func (a *Adoption) Mark(ctx context.Context) (int, error) {
	n, err := a.live.MarkOwned(ctx, a.Zone)
	if err != nil {
		return 0, fmt.Errorf("the spec is written, but adopting the zone failed: %w", err)
	}
	return n, nil
}

// Vet checks a spec site generated (site init's scaffold, an exported
// zone) with the operator's file it needs, as site vet would, and
// returns vet's messages as one error, each once, without positions:
// they would point into files not yet written.
func Vet(siteName string, site []byte, name string, src []byte) error {
	return vet(siteName, site, name, src, nil)
}

// vet is Vet, and sets *warnings (when not nil) to the warnings of a
// spec that passes.
func vet(siteName string, site []byte, name string, src []byte, warnings *compiler.Diagnostics) error {
	var o compiler.Options
	if warnings != nil {
		o.Warn = func(ws compiler.Diagnostics) { *warnings = ws }
	}
	_, err := compiler.LoadSourceWith(siteName, site, name, src, o)
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

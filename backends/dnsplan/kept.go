package dnsplan

import (
	"slices"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/rdata"
)

// Ignore rules with a value (DNSControl's IGNORE(label, type, target))
// cover single records, not RRsets: at a name and type the spec also
// writes, the records they match are written back beside the wanted
// ones, so a write (which replaces the whole RRset) never drops them;
// at one the spec no longer wants, only the records they do not match
// are removed.

// keptValues returns the values of l that a value rule of z covers, nil
// when none does. A TXT value is matched as written and as its text.
func keptValues(z *model.Zone, l *RRset) []string {
	if !z.KeepsRecords(l.Name, l.Type) {
		return nil
	}
	var kept []string
	for _, v := range l.Values {
		texts := []string{v}
		if l.Type == "TXT" {
			if s, err := rdata.ParseTXT(v); err == nil {
				texts = append(texts, s)
			}
		}
		if z.RecordIgnored(l.Name, l.Type, texts...) != nil {
			kept = append(kept, v)
		}
	}
	return kept
}

// withKept is the sorted union of the wanted values and the kept ones.
func withKept(values, kept []string) []string {
	out := slices.Clone(values)
	for _, k := range kept {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// keepOnly plans an RRset of ours the spec no longer wants, some of
// whose records a value rule keeps: rewritten with those alone.
func (p *planner) keepOnly(l *RRset) {
	ci := p.change(l.Name, l.Type, plan.ActionUpdate, plan.ImpactLive, "no longer in the spec; the records an ignore rule keeps stay")
	c := &p.res.Changes[ci]
	c.Before, c.After = p.before(l), attrs(l.TTL, l.kept)
	w := &model.RRset{Name: l.Name, Type: l.Type, TTL: l.TTL, Values: l.kept}
	p.res.Ops = append(p.res.Ops, Op{Kind: Update, Want: w, Values: l.kept, Live: l})
}

// keptToo returns the wanted values with those an ignore rule keeps in
// l (nil or none: values as they are), and notes them in the result
// (Result.Also).
func (p *planner) keptToo(values []string, l *RRset) []string {
	if l == nil || len(l.kept) == 0 {
		return values
	}
	if p.res.Also == nil {
		p.res.Also = map[NameType][]string{}
	}
	p.res.Also[l.NameType] = l.kept
	return withKept(values, l.kept)
}

// WithAlso is the values the server serves at a wanted RRset w once
// written: w's and those Also says an ignore rule keeps beside them.
func (r *Result) WithAlso(w *model.RRset) []string {
	values := slices.Sorted(slices.Values(w.Values))
	if kept := r.Also[NameType{w.Name, w.Type}]; len(kept) > 0 {
		values = withKept(values, kept)
	}
	return values
}

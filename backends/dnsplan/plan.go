package dnsplan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Hooks are the rules that really differ between providers. The zero
// value is the strictest reading of DNS.
type Hooks struct {
	// Same reports whether live and wanted values, both sorted, are the
	// same data. nil compares the texts.
	Same func(typ string, live, want []string) bool
	// Conflicts reports whether types a and b cannot share a name. nil
	// means a CNAME beside any other type (RFC 1034 §3.6.2, and what
	// PowerDNS refuses with 422), and an ALIAS beside addresses, which
	// it serves itself.
	Conflicts func(a, b string) bool
	// Before describes a live RRset for a change's Before. nil gives
	// its TTL and values.
	Before func(l *RRset) map[string]any
	// PerRecord says the provider marks each record, not the RRset: two
	// tenants' markers in one RRset are then two owners of different
	// records, and the tenant's part is deleted alone (Delete ops remove
	// only the tenant's records). Without it two markers on one RRset
	// are an unclear claim, and the RRset is nobody's to delete.
	PerRecord bool
}

// Kind is what an Op does.
type Kind int

// Op kinds. A provider encodes each as its own write.
const (
	// Create writes a wanted RRset where no data is: records and marker.
	Create Kind = iota
	// Update rewrites an RRset that is ours: records only.
	Update
	// Adopt marks identical live data as ours: marker only, the served
	// records stay as they are.
	Adopt
	// Overwrite replaces live data that is not ours: records and marker.
	Overwrite
	// GiveWay deletes a whole RRset that cannot stay beside a wanted type.
	GiveWay
	// Delete removes what is ours of an RRset the spec no longer wants.
	Delete
)

// Op is one decision for the provider to encode.
type Op struct {
	Kind Kind
	// Want and Values (Want's values, sorted) are set for Create,
	// Update, Adopt and Overwrite.
	Want   *model.RRset
	Values []string
	// Live is the observed RRset; nil for a Create where nothing was.
	Live *RRset
}

// Result is the plan of one zone: the changes a user reads, and the
// ops, GiveWays before the write that needs them and Deletes last.
type Result struct {
	Changes []plan.Change
	Ops     []Op
	// Kept are the live RRsets holding data that the zone's ignore
	// rules kept out of the plan (nil when none): they stay as they are.
	Kept Kept
	// Also are the records ignore rules with a value keep at a wanted
	// name and type (nil when none): what the server serves there is
	// the wanted values and these (kept.go).
	Also map[NameType][]string
	// Notes are lines for the plan that change nothing: the RRsets
	// another tenant's marker names that the spec does not want
	// (strays.go).
	Notes []string
}

// Kept maps the live RRsets that a zone's ignore rules kept out of its
// plan to their attributes as a change's Before shows them (Hooks.Before).
type Kept map[NameType]map[string]any

// attrs are a change's Before or After. values is shared, not copied:
// nothing changes an observed or wanted list after it is made.
func attrs(ttl uint32, values []string) map[string]any {
	return map[string]any{"ttl": ttl, "values": values}
}

// Attrs is the default Before of a live RRset: its TTL and values.
func Attrs(l *RRset) map[string]any { return attrs(l.TTL, l.Values) }

func (h *Hooks) same(typ string, live, want []string) bool {
	if h.Same != nil {
		return h.Same(typ, live, want)
	}
	return slices.Equal(live, want)
}

func (h *Hooks) conflicts(a, b string) bool {
	if h.Conflicts != nil {
		return h.Conflicts(a, b)
	}
	return a != b && (a == "CNAME" || b == "CNAME" || aliasBesideAddress(a, b))
}

// aliasBesideAddress reports whether one of a and b is an ALIAS and the
// other an address type: both would answer A or AAAA queries.
func aliasBesideAddress(a, b string) bool {
	addr := func(t string) bool { return t == "A" || t == "AAAA" }
	return a == "ALIAS" && addr(b) || b == "ALIAS" && addr(a)
}

// ownsPart reports whether some of l carries tenant's marker, so that
// it counts as ours for the delete gate and is deleted when not wanted.
func (h *Hooks) ownsPart(l *RRset, tenant string) bool {
	if l.Owner == tenant {
		return true
	}
	return h.PerRecord && slices.Contains(strings.Split(l.Owner, " and "), tenant)
}

func (h *Hooks) before(l *RRset) map[string]any {
	if h.Before != nil {
		return h.Before(l)
	}
	return Attrs(l)
}

// planner holds one Plan call's state.
type planner struct {
	*Hooks
	step *graph.Step
	obs  *Observed
	res  *Result
	// updates are the changes that rewrite RRsets of ours (Update ops),
	// counted by the update gate.
	updates []int
	// room is how many changes the rest of the plan can make at most:
	// the first change sizes the slices by it, so a converged zone
	// allocates none and a zone created from empty allocates once.
	room int
}

// change adds a change and returns its index, not a pointer: later
// appends may move the slice.
func (p *planner) change(name, typ string, a plan.Action, imp plan.Impact, reason string) int {
	r := p.res
	if r.Changes == nil {
		r.Changes = make([]plan.Change, 0, p.room+1)
		r.Ops = make([]Op, 0, p.room+1)
	}
	r.Changes = append(r.Changes, plan.Change{Key: Key(p.step.Zone.Name, name, typ), Step: p.step.ID,
		Phase: p.step.Phase, Tenant: p.step.Tenant, Action: a, Impact: imp, Reason: reason})
	return len(r.Changes) - 1
}

func (p *planner) gate(ci int, imp plan.Impact) {
	c := &p.res.Changes[ci]
	c.Impact = imp
	c.Gates = []plan.Gate{plan.GateDNSOverwrite}
}

// Plan compares what step's zone wants with a complete observation of
// it. It marks obs's RRsets as it goes: plan an observation once.
func Plan(step *graph.Step, obs *Observed, run *backends.Run, h Hooks) *Result {
	z := step.Zone
	p := &planner{Hooks: &h, step: step, obs: obs, res: &Result{}, room: len(z.RRsets)}
	// The compiler hands RRsets over sorted; sort only when they are not,
	// since sorting is a real part of a 10,000-RRset plan.
	wanted := z.RRsets
	if !slices.IsSortedFunc(wanted, Compare) {
		wanted = slices.Clone(wanted)
		slices.SortFunc(wanted, Compare)
	}
	// One lookup per wanted RRset; marking the live ones wanted first
	// lets the conflict and delete checks do without a set of keys.
	for _, l := range obs.Sets {
		// The signer's records are the server's to make (PowerDNS signs
		// from its cryptokeys): never adopted, changed or deleted, even
		// when something once marked them.
		signer := SignerType(l.Type)
		l.ignored = signer || (len(z.Ignore) > 0 && z.Ignored(l.Name, l.Type) != nil)
		if !l.ignored && len(z.Ignore) > 0 {
			l.kept = keptValues(z, l)
		}
		if l.ignored && !signer && l.HasData() {
			if p.res.Kept == nil {
				p.res.Kept = Kept{}
			}
			p.res.Kept[l.NameType] = p.before(l)
		}
	}
	live := make([]*RRset, len(wanted))
	for i, w := range wanted {
		if l := obs.Sets[NameType{w.Name, w.Type}]; l != nil {
			l.wanted = true
			live[i] = l
		}
	}
	for i, w := range wanted {
		p.room = len(wanted) - i
		p.want(w, live[i])
	}
	p.soa()
	p.deletes(run)
	p.updateMany(len(wanted), run)
	return p.res
}

// want plans one wanted RRset against what lives at its name and type.
func (p *planner) want(w *model.RRset, l *RRset) {
	tenant := p.step.Tenant
	values := w.Values
	if !slices.IsSorted(values) {
		values = slices.Sorted(slices.Values(values))
	}
	values = p.keptToo(values, l)
	same := func() bool {
		return l.TTL == w.TTL && !l.Irregular && l.Proxied == w.Proxied && p.same(w.Type, l.Values, values)
	}
	var ci int
	op := Op{Want: w, Values: values, Live: l}
	switch {
	case l == nil || !l.HasData():
		op.Kind = Create
		ci = p.change(w.Name, w.Type, plan.ActionCreate, plan.ImpactLive, "")
	case l.ours(tenant):
		if same() {
			return
		}
		op.Kind = Update
		ci = p.change(w.Name, w.Type, plan.ActionUpdate, plan.ImpactLive, "")
		p.updates = append(p.updates, ci)
	case l.Owner != "" && l.Owner == p.step.Zone.Within:
		op.Kind, ci = p.handover(w, l, same())
	case same():
		op.Kind = Adopt
		ci = p.change(w.Name, w.Type, plan.ActionAdopt, plan.ImpactNone,
			fmt.Sprintf("identical data %s: marked as ours, served data unchanged", l.OwnerText()))
		if l.Owner != "" && l.Owner != tenant {
			// Taking over another tenant's name is a decision for a
			// human even when the data is the same.
			p.gate(ci, plan.ImpactOverwrite)
		}
	default:
		op.Kind = Overwrite
		ci = p.change(w.Name, w.Type, plan.ActionUpdate, plan.ImpactOverwrite,
			fmt.Sprintf("replaces other content %s", l.OwnerText()))
		p.gate(ci, plan.ImpactOverwrite)
	}
	c := &p.res.Changes[ci]
	c.After = attrs(w.TTL, values)
	if op.Kind != Create {
		c.Before = p.before(l)
		if _, ok := c.Before["owner"]; ok {
			// The write marks the records the tenant's: said beside who
			// holds them now, or an update of our own records read as
			// taking the marker away.
			c.After["owner"] = tenant
		}
		if l.Proxied || w.Proxied {
			// Its own line in the diff, whichever way it turns.
			c.Before["proxied"] = l.Proxied
		}
	}
	if w.Proxied || l != nil && l.Proxied {
		c.After["proxied"] = w.Proxied
	}
	p.giveWay(w, ci)
	p.res.Ops = append(p.res.Ops, op)
}

// giveWay plans the deletes of live RRsets whose type cannot share the
// name with the wanted w (change ci); they go before w is written.
// By default only a CNAME and an ALIAS conflict with other types, so for
// any other wanted type two lookups answer without indexing the zone by
// name.
func (p *planner) giveWay(w *model.RRset, ci int) {
	var others []*RRset
	if w.Type == "CNAME" || w.Type == "ALIAS" || p.Hooks.Conflicts != nil {
		others = p.obs.atName(w.Name)
	} else {
		for _, t := range [...]string{"CNAME", "ALIAS"} {
			if c := p.obs.Sets[NameType{w.Name, t}]; c != nil {
				others = append(others, c)
			}
		}
	}
	for _, other := range others {
		// What is ours and not wanted goes anyway, as a Delete. What is
		// ignored stays: a write it conflicts with fails at the provider,
		// which says why, rather than site deleting what it was told to
		// leave alone.
		if !p.conflicts(w.Type, other.Type) || other.wanted || !other.HasData() || other.ours(p.step.Tenant) || other.ignored {
			continue
		}
		if other.Type == "NS" && other.Name == p.step.Zone.Name {
			continue // the apex NS is never removed
		}
		if !other.giveWay {
			other.giveWay = true
			di := p.change(other.Name, other.Type, plan.ActionDelete, plan.ImpactOverwrite,
				fmt.Sprintf("%s %s gives way to the wanted %s", other.Type, other.OwnerText(), w.Type))
			p.gate(di, plan.ImpactOverwrite)
			p.res.Changes[di].Before = p.before(other)
			p.res.Ops = append(p.res.Ops, Op{Kind: GiveWay, Live: other})
		}
		p.gate(ci, plan.ImpactOverwrite)
		if c := &p.res.Changes[ci]; c.Reason == "" {
			c.Reason = fmt.Sprintf("replaces a foreign %s at this name", other.Type)
		}
	}
}

// deletes plans the deletes of what carries this tenant's marker and is
// no longer wanted. The observation is complete here, which is what
// makes deleting safe at all.
func (p *planner) deletes(run *backends.Run) {
	tenant := p.step.Tenant
	ours := 0
	var gone []*RRset
	var strays strays
	var handing []string
	for _, l := range p.obs.Sets {
		if p.notThisSteps(l, &handing) {
			continue
		}
		if l.ignored || !p.ownsPart(l, tenant) {
			strays.add(l)
			continue
		}
		if !l.wanted && len(l.kept) == len(l.Values) {
			continue // every record kept by a rule: left alone, not counted
		}
		ours++
		if !l.wanted && !l.giveWay {
			gone = append(gone, l)
		}
	}
	slices.SortFunc(gone, func(a, b *RRset) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Type, b.Type))
	})
	p.res.Notes = append(strays.notes(p.step.Zone.Name), handingNotes(handing)...)
	var deletes []int
	for _, l := range gone {
		if l.Type == "NS" && l.Name == p.step.Zone.Name {
			// The apex NS is never removed (the zone would stop working),
			// so it is not among what could go either.
			ours--
			continue
		}
		if len(l.kept) > 0 {
			p.keepOnly(l)
			continue
		}
		ci := p.change(l.Name, l.Type, plan.ActionDelete, plan.ImpactLive, "no longer in the spec")
		p.res.Changes[ci].Before = p.before(l)
		deletes = append(deletes, ci)
		p.res.Ops = append(p.res.Ops, Op{Kind: Delete, Live: l})
	}
	why := deleteMany(len(deletes), p.lost(gone), ours, run)
	if why == "" {
		return
	}
	for _, ci := range deletes {
		c := &p.res.Changes[ci]
		c.Gates = append(c.Gates, plan.GateDNSDeleteMany)
		c.Reason = fmt.Sprintf("no longer in the spec; %d of the %d RRsets site owns in this zone go at once: %s", len(deletes), ours, why)
	}
}

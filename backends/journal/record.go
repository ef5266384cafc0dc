package journal

import (
	"encoding/json"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/plan"
)

// Run is what every entry of one apply shares.
type Run struct {
	ID      string
	Time    time.Time
	Who     string
	Commit  string
	Command string
	Undoes  string
}

// NewRun describes this process's apply of command at now, in the
// repository of dir (site.cue's directory; "" for none).
func NewRun(command, dir string, now time.Time) Run {
	return Run{ID: NewID(now), Time: now.UTC().Truncate(time.Millisecond), Who: Who(), Commit: Commit(dir), Command: command}
}

// Who is the user running site and the host: "alice@build-3".
func Who() string {
	name := "unknown-user"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return name + "@" + host
}

// Entries are the entries of an apply, one per tenant that it changed:
// the changes of p whose steps rep says were applied (in part or
// whole), with their before-images. g names each DNS step's zone;
// steps are the plan's steps, whose drivers may know the Image of the
// VM or network they change.
func Entries(r Run, g *graph.Graph, p *plan.Plan, steps map[string]*backends.StepPlan, rep *engine.Report) []Entry {
	done := map[string]bool{}
	for _, s := range rep.Steps {
		if s.Status == engine.StatusApplied || s.Status == engine.StatusPartial {
			done[s.Step] = true
		}
	}
	zoneOf, providerOf := map[string]string{}, map[string]string{}
	for _, s := range g.Steps {
		if s.Zone != nil {
			zoneOf[s.ID] = s.Zone.Name
			if len(s.Zone.Providers) > 1 {
				providerOf[s.ID] = s.Zone.Provider.Name
			}
		}
	}
	byTenant := map[string][]Change{}
	images := map[string]map[string]*backends.Image{}
	for _, c := range p.Changes {
		if !done[c.Step] || c.Impact == plan.ImpactRefused || c.Tenant == "" {
			continue
		}
		jc := fromPlan(c, zoneOf[c.Step])
		jc.Provider = providerOf[c.Step]
		byTenant[c.Tenant] = append(byTenant[c.Tenant], jc)
		if img := backends.ImageOf(steps[c.Step]); img != nil {
			if images[c.Tenant] == nil {
				images[c.Tenant] = map[string]*backends.Image{}
			}
			images[c.Tenant][c.Step] = img
		}
	}
	var out []Entry
	for tenant, cs := range byTenant {
		out = append(out, Entry{Format: Format, ID: r.ID, Tenant: tenant, Time: r.Time, Who: r.Who, Commit: r.Commit,
			Command: r.Command, Undoes: r.Undoes, Changes: cs, Images: images[tenant]})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Tenant, b.Tenant) })
	return out
}

// fromPlan is c as the journal keeps it; zone is its step's zone ("" for
// a step outside DNS).
func fromPlan(c plan.Change, zone string) Change {
	out := Change{Key: c.Key, Step: c.Step, Phase: c.Phase, Action: c.Action}
	// The name may hold a "/" (RFC 2317 zones): the type is after the last.
	rest, dns := strings.CutPrefix(c.Key, "dns/"+zone+"/")
	i := strings.LastIndexByte(rest, '/')
	if zone == "" || !dns || i < 0 {
		out.BeforeFields, out.AfterFields = plain(c.Before), plain(c.After)
		return out
	}
	out.Zone, out.Name, out.Type = zone, rest[:i], rest[i+1:]
	out.Before, out.After = rrset(c.Before), rrset(c.After)
	return out
}

// rrset reads a DNS change's Before or After (ttl, values, proxied,
// owner) through JSON, which is how a saved plan holds them too.
func rrset(m map[string]any) *RRset {
	if m == nil {
		return nil
	}
	r, ok := rrsetDirect(m)
	if !ok {
		r = RRset{}
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &r)
		}
	}
	slices.Sort(r.Values)
	return &r
}

// rrsetDirect reads m without the JSON round trip when it holds only the
// types the DNS backends put there (a 10,000-change apply spent most of
// its journalling time marshalling and parsing them). ok is false for
// anything else, which goes through JSON as before. The values are
// copied: they are sorted here and m's are shared with the plan.
func rrsetDirect(m map[string]any) (r RRset, ok bool) {
	for k, v := range m {
		switch k {
		case "ttl":
			r.TTL, ok = v.(uint32)
		case "values":
			var vs []string
			vs, ok = v.([]string)
			r.Values = slices.Clone(vs)
		case "proxied":
			r.Proxied, ok = v.(bool)
		case "owner":
			r.Owner, ok = v.(string)
		default:
			ok = false
		}
		if !ok {
			return RRset{}, false
		}
	}
	return r, true
}

// plain is m as plain JSON values.
func plain(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	var out map[string]any
	if b, err := json.Marshal(m); err == nil && json.Unmarshal(b, &out) == nil {
		return out
	}
	return nil
}

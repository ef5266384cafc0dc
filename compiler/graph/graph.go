// Package graph compiles a model into ensure-steps: one step per thing
// site converges (a secret read, a network, a VM, a DNS zone), with the
// dependencies between them, in a stable topological order.
//
// A step says what to converge, never how: the backends know how.
package graph

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Step is one ensure-step.
type Step struct {
	ID string // stable and unique, e.g. "dns/sjc.example.net." or "vm/qemu:///system/keys"
	// Phase is the kind of system the step converges; it picks the
	// backend and orders cold starts.
	Phase  plan.Phase
	Tenant string
	Deps   []string // IDs of steps that must succeed first
	// TenantSpec is the whole tenant that declares the step, so that a
	// backend can tell which of the tenant's resources on a host the spec
	// no longer declares (there is no state file to remember them). Nil
	// for secret steps.
	TenantSpec *model.Tenant
	// Prerequisite is true in a scoped graph (Only, Targets) for a step
	// that was not chosen but is kept because a chosen step needs it:
	// a VM's networks and pools, a zone's secret. Plans list the prerequisites
	// that converge something, so a scope never changes more than it says.
	Prerequisite bool

	// Exactly one of these is set, matching Phase; Undeclared instead
	// of VM or Network for a resource the tenant no longer declares.
	Secret     *Secret
	Network    *model.Network
	Pool       *model.Pool
	Image      *model.Image
	VM         *model.VM
	Zone       *model.Zone
	Undeclared *Undeclared

	// Removal is, on a declared step whose ID another tenant's
	// undeclared resource took (see With), the ID of the step that
	// removes that resource ("vm/URI/db@victim"), for the refusal of
	// this step to name.
	Removal string
}

// Secret is one credential read from one of the operator's stores.
type Secret struct {
	Store *model.Vault
	Ref   model.VaultRef
}

// SecretStepID names the step that reads ref. Stores are the operator's
// (site.cue), so one secret read serves every tenant whose provider
// needs it.
func SecretStepID(ref model.VaultRef) string {
	return "secret/" + ref.Vault + "/" + ref.Path + "#" + ref.Key
}

// Graph is a set of steps in topological order.
type Graph struct {
	Steps []*Step
	byID  map[string]*Step
}

// Step returns the step with the given ID, or nil.
func (g *Graph) Step(id string) *Step { return g.byID[id] }

// Build compiles a validated spec into a graph.
func Build(spec *model.Spec) (*Graph, error) {
	l := &stepList{secrets: map[string]*Step{}, storage: map[string]bool{}}
	for _, t := range spec.Tenants {
		netIDs := map[string]string{}
		for _, n := range t.Networks {
			s := &Step{ID: NetworkStepID(n.Host, n.Name), Phase: plan.PhaseNetwork, Tenant: t.Name, TenantSpec: t, Network: n}
			netIDs[n.Name] = s.ID
			l.steps = append(l.steps, s)
		}
		publishers := map[string][]string{} // zone name -> VM step IDs
		for _, vm := range t.VMs {
			s := &Step{ID: VMStepID(vm.Host, vm.Name), Phase: plan.PhaseVM, Tenant: t.Name, TenantSpec: t, VM: vm}
			for _, p := range vm.Pools {
				s.Deps = append(s.Deps, l.needPool(p))
			}
			for _, img := range vm.Images {
				s.Deps = append(s.Deps, l.needImage(img))
			}
			for _, nic := range vm.NICs {
				if id, ok := netIDs[nic.Network]; ok {
					s.Deps = append(s.Deps, id)
				}
			}
			if vm.Publish != nil {
				publishers[vm.Publish.Zone] = append(publishers[vm.Publish.Zone], s.ID)
				if z := vm.Publish.PTRZone; z != "" && z != vm.Publish.Zone {
					publishers[z] = append(publishers[z], s.ID)
				}
			}
			l.steps = append(l.steps, s)
		}
		for _, z := range t.Zones {
			if err := l.zone(spec, t, z, publishers[z.Name]); err != nil {
				return nil, err
			}
		}
		if err := l.names(spec, t); err != nil {
			return nil, err
		}
	}
	return order(l.steps)
}

// zone adds the steps of z, one per provider it is on (see
// ZoneStepIDs): each observes, plans, gates, applies and verifies on
// its own provider, so one provider down blocks its step alone.
func (l *stepList) zone(spec *model.Spec, t *model.Tenant, z *model.Zone, publishers []string) error {
	ids := ZoneStepIDs(z)
	for i, p := range z.Served() {
		s := &Step{ID: ids[i], Phase: plan.PhaseDNS, Tenant: t.Name, TenantSpec: t, Zone: z}
		if len(ids) > 1 {
			s.Zone = z.OnProvider(p)
		}
		id, err := l.needSecret(spec, p.Credential())
		if err != nil {
			return err
		}
		if id != "" {
			s.Deps = append(s.Deps, id)
		}
		s.Deps = append(s.Deps, publishers...)
		// A parent publishes its signed children's DS, read from
		// their keys: a child's step signs it first. (A signed zone is
		// on one provider: vet refuses dnssec on several.)
		for _, c := range z.SignedChildren {
			s.Deps = append(s.Deps, ZoneStepID(c.Name))
		}
		l.steps = append(l.steps, s)
	}
	return nil
}

// ZoneStep is the step that converges zone on its own, for calls outside
// a step graph (site export).
func ZoneStep(zone *model.Zone) *Step {
	return &Step{ID: ZoneStepID(zone.Name), Phase: plan.PhaseDNS, Tenant: zone.Tenant, Zone: zone}
}

// NetworkStepID names the step converging a network.
func NetworkStepID(host, name string) string { return "network/" + host + "/" + name }

// PoolStepID names the step converging a storage pool.
func PoolStepID(host, name string) string { return "pool/" + host + "/" + name }

// ImageStepID names the step uploading a base image.
func ImageStepID(host, pool, name string) string { return "image/" + host + "/" + pool + "/" + name }

// VMStepID names the step converging a VM.
func VMStepID(host, name string) string { return "vm/" + host + "/" + name }

// ZoneStepID names the step converging a DNS zone.
func ZoneStepID(zone string) string { return "dns/" + zone }

// ZoneStepIDs names the steps converging z, one per provider it is on,
// in the order of z.Served(): ZoneStepID alone for a zone on one
// provider, and dns/ZONE@PROVIDER for each of several, so the step ID
// (and the plan's heading) says which provider a change is on.
func ZoneStepIDs(z *model.Zone) []string {
	served := z.Served()
	if len(served) == 1 {
		return []string{ZoneStepID(z.Name)}
	}
	ids := make([]string, len(served))
	for i, p := range served {
		ids[i] = ZoneProviderStepID(z.Name, p.Name)
	}
	return ids
}

// ZoneProviderStepID names the step converging zone on provider, for a
// zone on several providers. Like NamesStepID it is keyed in the zone:
// its changes' keys stay dns/ZONE/NAME/TYPE.
func ZoneProviderStepID(zone, provider string) string { return ZoneStepID(zone) + "@" + provider }

// order sorts steps topologically, breaking ties by phase then ID so the
// order is the same on every run.
func order(steps []*Step) (*Graph, error) {
	byID := map[string]*Step{}
	for _, s := range steps {
		if _, dup := byID[s.ID]; dup {
			return nil, fmt.Errorf("two steps converge %s: declare it once", s.ID)
		}
		byID[s.ID] = s
	}
	rank := map[plan.Phase]int{}
	for i, p := range plan.Phases {
		rank[p] = i
	}
	less := func(a, b *Step) bool {
		if rank[a.Phase] != rank[b.Phase] {
			return rank[a.Phase] < rank[b.Phase]
		}
		return a.ID < b.ID
	}
	indeg := map[string]int{}
	users := map[string][]*Step{}
	for _, s := range steps {
		sort.Strings(s.Deps)
		for _, d := range s.Deps {
			if byID[d] == nil {
				return nil, fmt.Errorf("step %s depends on unknown step %s", s.ID, d)
			}
			indeg[s.ID]++
			users[d] = append(users[d], s)
		}
	}
	// ready is a heap ordered by less, so each pick is O(log n) and the
	// whole sort stays O(n log n) for thousands of steps.
	ready := &stepHeap{less: less}
	var out []*Step
	for _, s := range steps {
		if indeg[s.ID] == 0 {
			heap.Push(ready, s)
		}
	}
	for ready.Len() > 0 {
		s := heap.Pop(ready).(*Step)
		out = append(out, s)
		for _, u := range users[s.ID] {
			indeg[u.ID]--
			if indeg[u.ID] == 0 {
				heap.Push(ready, u)
			}
		}
	}
	if len(out) != len(steps) {
		var stuck []string
		for _, s := range steps {
			if indeg[s.ID] > 0 {
				stuck = append(stuck, s.ID)
			}
		}
		return nil, fmt.Errorf("dependency cycle among steps: %s", strings.Join(stuck, ", "))
	}
	return &Graph{Steps: out, byID: byID}, nil
}

// stepHeap is a min-heap of steps under less.
type stepHeap struct {
	steps []*Step
	less  func(a, b *Step) bool
}

func (h *stepHeap) Len() int           { return len(h.steps) }
func (h *stepHeap) Less(i, j int) bool { return h.less(h.steps[i], h.steps[j]) }
func (h *stepHeap) Swap(i, j int)      { h.steps[i], h.steps[j] = h.steps[j], h.steps[i] }
func (h *stepHeap) Push(x any)         { h.steps = append(h.steps, x.(*Step)) }
func (h *stepHeap) Pop() any {
	last := h.steps[len(h.steps)-1]
	h.steps = h.steps[:len(h.steps)-1]
	return last
}

// Only keeps the steps of the given phases plus the steps they need
// (see keep): --only dns keeps the secret steps the DNS steps need, and
// --only vm the networks the VMs attach to and the pools their volumes
// live in. An empty list keeps everything.
func (g *Graph) Only(phases []plan.Phase) *Graph {
	if len(phases) == 0 {
		return g
	}
	want := map[plan.Phase]bool{}
	for _, p := range phases {
		want[p] = true
	}
	return g.keep(func(s *Step) bool { return want[s.Phase] })
}

// OnlyOrders reports whether s's dependency dep only orders the two:
// a zone comes after the VMs that publish into it. The published
// address is in the spec, or a DHCP lease the zone's own step reads, so
// observing the zone needs nothing of the VM's observation (a diff from
// where the libvirt host cannot be reached still shows the zone); apply
// still waits for the VM, and skips the zone when it fails.
func OnlyOrders(s, dep *Step) bool {
	return s.Phase == plan.PhaseDNS && dep.Phase == plan.PhaseVM
}

// needs reports whether a step cannot converge without its dependency
// dep: the secrets it reads, the networks a VM attaches to (libvirt
// refuses to start a domain whose network is missing, leaving the run
// half-applied), the pools its volumes live in (no volume can be made in
// a pool that does not exist) and the base images its disks start from. A zone's dependency on the VMs publishing into it only
// orders the two: the published address is in the spec, so a scope on
// the zone does not converge those VMs.
func needs(dep *Step) bool {
	return dep.Phase == plan.PhaseSecrets || dep.Phase == plan.PhaseNetwork || dep.Phase == plan.PhaseStorage
}

// keep returns the subgraph of the steps chosen picks plus, transitively,
// the steps they need, marked Prerequisite.
func (g *Graph) keep(chosen func(*Step) bool) *Graph {
	keep := map[string]bool{}
	var mark func(id string)
	mark = func(id string) {
		if keep[id] {
			return
		}
		keep[id] = true
		for _, d := range g.byID[id].Deps {
			if needs(g.byID[d]) {
				mark(d)
			}
		}
	}
	picked := map[string]bool{}
	for _, s := range g.Steps {
		if chosen(s) {
			picked[s.ID] = true
			mark(s.ID)
		}
	}
	out := &Graph{byID: map[string]*Step{}}
	for _, s := range g.Steps {
		if keep[s.ID] {
			cp := *s
			// A step chosen here is chosen, even if an earlier scope
			// (--only before --target) kept it as a prerequisite.
			cp.Prerequisite = !picked[s.ID]
			cp.Deps = nil
			for _, d := range s.Deps {
				if keep[d] {
					cp.Deps = append(cp.Deps, d)
				}
			}
			out.Steps = append(out.Steps, &cp)
			out.byID[cp.ID] = &cp
		}
	}
	return out
}

// Prerequisites lists, in order, the steps of a scoped graph that were
// kept only because a chosen step needs them and that converge something
// (a secret step only reads), for the plan to show.
func (g *Graph) Prerequisites() []string {
	var out []string
	for _, s := range g.Steps {
		if s.Prerequisite && s.Phase != plan.PhaseSecrets {
			out = append(out, s.ID)
		}
	}
	return out
}

// DOT renders the graph in Graphviz DOT, steps clustered by phase.
func (g *Graph) DOT() string {
	var b strings.Builder
	b.WriteString("digraph site {\n\trankdir=LR;\n\tnode [shape=box];\n")
	for _, p := range plan.Phases {
		var in []*Step
		for _, s := range g.Steps {
			if s.Phase == p {
				in = append(in, s)
			}
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\tsubgraph \"cluster_%s\" {\n\t\tlabel=%q;\n", p, string(p))
		for _, s := range in {
			if s.Prerequisite && s.Phase != plan.PhaseSecrets {
				// Converged only because a chosen step needs it.
				fmt.Fprintf(&b, "\t\t%q [label=%q, style=dashed];\n", s.ID, s.ID+"\n(prerequisite)")
				continue
			}
			fmt.Fprintf(&b, "\t\t%q [label=%q];\n", s.ID, s.ID)
		}
		b.WriteString("\t}\n")
	}
	for _, s := range g.Steps {
		for _, d := range s.Deps {
			fmt.Fprintf(&b, "\t%q -> %q;\n", d, s.ID)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

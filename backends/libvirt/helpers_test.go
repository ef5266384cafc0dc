//go:build cgo && libvirt_dlopen

package libvirt

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/engine"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/libvirt/domain"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/backends/libvirt/libvirttest"
	"github.com/site-tools/site/backends/libvirt/ownership"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

const tenant = "t1"

// rig drives one host through the real executor, as site diff and site
// apply do.
type rig struct {
	t    testing.TB
	d    *Driver
	host string // as written in the spec
	eng  *engine.Engine
}

func newRig(t testing.TB, host string, opts Options) *rig {
	t.Helper()
	if err := Available(); err != nil {
		t.Fatal(err) // libvirt0 is a build dependency of this package's tests
	}
	return newRigWith(t, host, New(opts))
}

// newRigWith drives host through d, which it closes when the test ends.
func newRigWith(t testing.TB, host string, d *Driver) *rig {
	t.Helper()
	t.Cleanup(func() { _ = d.Close() })
	r := &rig{t: t, d: d, host: host}
	r.eng = &engine.Engine{Parallelism: 2, DriverFor: func(s *graph.Step) (backends.Driver, error) {
		switch s.Phase {
		case plan.PhaseVM:
			return d.VMs(), nil
		case plan.PhaseNetwork:
			return d.Networks(), nil
		case plan.PhaseStorage:
			return d.Pools(), nil
		}
		return nil, fmt.Errorf("no driver for %s", s.Phase)
	}}
	return r
}

func (r *rig) conn() *libvirt.Connect {
	r.t.Helper()
	c, err := r.d.Conn(r.host)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// vm returns a tiny VM on the rig's host.
func (r *rig) vm(name string) *model.VM {
	return &model.VM{Tenant: tenant, Name: name, Host: r.host, Autostart: false, Running: true, VCPUs: 1, MemoryBytes: 64 << 20}
}

// graph compiles one tenant holding vms and nets, with a step for each
// domain and network of the tenant on the host that it no longer
// declares, as site diff and site apply do.
func (r *rig) graph(vms []*model.VM, nets []*model.Network) *graph.Graph {
	r.t.Helper()
	t := &model.Tenant{Name: tenant, Domain: "t1.example.net.", VMs: vms, Networks: nets}
	return r.discovered(&model.Spec{Tenants: []*model.Tenant{t}})
}

// discovered compiles spec with the steps that remove what each tenant
// no longer declares on the rig's host, found as site diff finds them.
func (r *rig) discovered(spec *model.Spec) *graph.Graph {
	r.t.Helper()
	g, err := graph.Build(spec)
	if err != nil {
		r.t.Fatal(err)
	}
	found, err := r.d.Discover(context.Background(), g)
	if err != nil {
		r.t.Fatal(err)
	}
	if g, err = g.With(found); err != nil {
		r.t.Fatal(err)
	}
	return g
}

// diff plans g in a fresh run, as a new site diff would.
func (r *rig) diff(g *graph.Graph, restart ...string) (*engine.Observation, *backends.Run) {
	r.t.Helper()
	r.d.ForgetObserved()
	run := runstate.Start(backends.NewRun())
	for _, vm := range restart {
		run.Restart[vm] = true
	}
	obs, err := r.eng.Plan(context.Background(), g, run)
	if err != nil {
		r.t.Fatal(err)
	}
	return obs, run
}

// apply applies obs with the given gates and fails the test unless every
// step applied cleanly.
func (r *rig) apply(g *graph.Graph, obs *engine.Observation, run *backends.Run, ack ...plan.Gate) *engine.Report {
	r.t.Helper()
	rep, err := r.tryApply(g, obs, run, ack...)
	if err != nil {
		r.t.Fatalf("apply: %v", err)
	}
	for _, s := range rep.Steps {
		if s.Status == engine.StatusFailed || len(s.Problems) > 0 {
			r.t.Fatalf("apply %s: %s %s %v", s.Step, s.Status, s.Reason, s.Problems)
		}
	}
	return rep
}

func (r *rig) tryApply(g *graph.Graph, obs *engine.Observation, run *backends.Run, ack ...plan.Gate) (*engine.Report, error) {
	for _, a := range ack {
		run.Acked[a] = true
	}
	return r.eng.Apply(context.Background(), g, obs, run)
}

// converge applies whatever g needs, with every gate, and checks that a
// fresh diff is then empty but for pending lines.
func (r *rig) converge(g *graph.Graph) {
	r.t.Helper()
	obs, run := r.diff(g)
	r.apply(g, obs, run, plan.GateVMDestroy, plan.GateVMStop, plan.GateNetDestroy, plan.GateVMDiskResize)
	again, _ := r.diff(g)
	if len(again.Plan.Blocked) > 0 {
		r.t.Fatalf("blocked after converge: %+v", again.Plan.Blocked)
	}
	for _, c := range again.Plan.Changes {
		if c.Impact != plan.ImpactNextBoot {
			r.t.Fatalf("not converged: %s", line(c))
		}
	}
}

// line renders a change compactly for comparisons and messages.
func line(c plan.Change) string {
	attrs := map[string]bool{}
	for k := range c.Before {
		attrs[k] = true
	}
	for k := range c.After {
		attrs[k] = true
	}
	var names []string
	for k := range attrs {
		names = append(names, k)
	}
	sort.Strings(names)
	var gates []string
	for _, g := range c.Gates {
		gates = append(gates, string(g))
	}
	s := fmt.Sprintf("%s %s %s [%s]", c.Impact, c.Action, c.Key, strings.Join(names, ","))
	if len(gates) > 0 {
		s += " " + strings.Join(gates, ",")
	}
	return s
}

func lines(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, line(c))
	}
	return out
}

// domainState reads a domain back through the rig's connection.
type domainState struct {
	ID        int
	Running   bool
	Autostart bool
	Live      *libvirtxml.Domain
	Inactive  *libvirtxml.Domain
}

func (r *rig) domain(name string) domainState {
	r.t.Helper()
	dom, err := r.conn().LookupDomainByName(name)
	if err != nil {
		r.t.Fatal(err)
	}
	defer dom.Free()
	o, err := hosts.ObserveDomain(r.d.Set, dom)
	if err != nil {
		r.t.Fatal(err)
	}
	return domainState{ID: o.ID(), Running: o.Running, Autostart: o.Autostart, Live: o.Live, Inactive: o.Inactive}
}

func memKiB(d *libvirtxml.Domain) uint { return domain.ToKiB(d.Memory.Value, d.Memory.Unit) }

func wantGatesMissing(t testing.TB, err error, gate plan.Gate) {
	t.Helper()
	var gm *engine.GatesMissingError
	if !errors.As(err, &gm) {
		t.Fatalf("got error %v, want a GatesMissingError naming %s", err, gate)
	}
	for _, g := range gm.Missing {
		if g == gate {
			return
		}
	}
	t.Fatalf("got missing gates %v, want %s among them", gm.Missing, gate)
}

func backendsRun() *backends.Run { return runstate.Start(backends.NewRun()) }

// wantPoolRunning checks that p is active and starts with its host.
func wantPoolRunning(t *testing.T, p *libvirt.StoragePool) {
	t.Helper()
	active, _ := p.IsActive()
	auto, _ := p.GetAutostart()
	if !active || !auto {
		t.Errorf("pool: active %v autostart %v, want both", active, auto)
	}
}

// refusedKeys lists the keys of the changes rep says site refused.
func refusedKeys(rep *engine.Report) []string {
	var out []string
	for _, s := range rep.Steps {
		for _, c := range s.Refused {
			out = append(out, c.Key)
		}
	}
	return out
}

// stepIDs lists the IDs of g's steps in order.
func stepIDs(g *graph.Graph) []string {
	var out []string
	for _, s := range g.Steps {
		out = append(out, s.ID)
	}
	return out
}

// convergedDomains is a rig on a test-driver host holding n domains of
// the test tenant, each as the VM returned for it would define it.
func convergedDomains(t testing.TB, n int) (*rig, []*model.VM) {
	t.Helper()
	var fx libvirttest.Fixture
	var vms []*model.VM
	for i := range n {
		vm := &model.VM{Tenant: tenant, Name: fmt.Sprintf("vm%03d", i), Autostart: false, Running: true, VCPUs: 1, MemoryBytes: 64 << 20}
		def := domain.New(vm.Name, "test")
		(&domain.Want{VM: vm, Owner: &ownership.Owner{Tenant: tenant}}).Apply(def, "")
		x, err := def.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		fx.Domains = append(fx.Domains, x)
		vms = append(vms, vm)
	}
	r := newRig(t, libvirttest.TestURI(t, fx), Options{})
	for _, vm := range vms {
		vm.Host = r.host
	}
	return r, vms
}

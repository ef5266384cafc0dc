//go:build cgo && libvirt_dlopen

package netstep

import (
	"context"
	"fmt"
	"sync"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Driver converges plan.PhaseNetwork steps on a run's hosts.
type Driver struct {
	s *hosts.Set
	// define serialises network definitions: libvirt picks the first
	// free virbrN for a network that names no bridge, and two defines at
	// once picked the same one (the second start then failed "creating
	// bridge interface virbr0: File exists").
	define *sync.Mutex
}

// New returns the network steps' Driver on s.
func New(s *hosts.Set) Driver { return Driver{s: s, define: &sync.Mutex{}} }

// OpKind is what an Op does, in the order a step runs them.
type OpKind int

const (
	OpDefine OpKind = iota
	OpHostDelete
	OpHostAdd
	OpStart
	OpAutostart
	OpDestroy
	OpStop // destroy (stop) only: the definition stays
)

// Op is one call of a network step's apply.
type Op struct {
	Kind OpKind
	Gate plan.Gate
	Name string
	XML  string
	Bool bool
	// Live and Config say where a DHCP host update goes: the running
	// network, the persistent definition (not when a define writes it),
	// or both.
	Live, Config bool
	// Net is the network a define writes, whose cidr the define checks
	// against the host's other networks again as it acts: another
	// tenant's apply (its lock is its own) may define one between this
	// run's plan and its define. Prev is the persistent definition the
	// define replaces, "" when it makes the network, to put back when
	// that check fails after the define.
	Net  *model.Network
	Prev string
}

func (o Op) Gated() plan.Gate { return o.Gate }

// described says what o did on host, for the error of a later op of its
// step (withDone).
func (o Op) described(host string) string {
	switch o.Kind {
	case OpStop:
		return fmt.Sprintf("stopped network %s, which stays stopped until it is started (virsh -c %s net-start %s, or site apply once the error is fixed)", o.Name, host, o.Name)
	case OpDefine:
		return "defined network " + o.Name
	case OpHostDelete, OpHostAdd:
		return "updated the DHCP host entries of network " + o.Name
	case OpStart:
		return "started network " + o.Name
	case OpAutostart:
		return "set the autostart of network " + o.Name
	}
	return "destroyed network " + o.Name // OpDestroy
}

// Detail is a network step's plan: the ops its Apply runs on Host.
type Detail struct {
	Host string
	Ops  []Op
	// waiting counts the changes that are only pending: in the
	// persistent definition already, waiting for the network's restart.
	Waiting int
	image   *backends.Image // for the journal (journalimage.go)
}

// Plan observes the network's host (once per run) and plans define,
// start and autostart, or, for a network the tenant no longer declares,
// its destroy.
func (n Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return n.typed().Plan(ctx, step, run)
}

// typed is the network driver as a backends.Driver: its plans carry
// the ops their Apply runs.
func (n Driver) typed() backends.Typed[*Detail] {
	return conn.Typed("libvirt network", n.plan, n.apply)
}

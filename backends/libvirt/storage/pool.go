//go:build cgo && libvirt_dlopen

package storage

import (
	"context"
	"fmt"
	"strconv"

	"libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/conn"
	"github.com/site-tools/site/backends/libvirt/hosts"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Driver converges plan.PhaseStorage steps: the storage pools
// site.cue declares, and the base images it uploads into them
// (image.go). A missing pool is defined, built, started and
// autostarted; an existing one is only started and autostarted, never
// redefined: one with another type or path is a conflict the operator
// resolves, since its volumes are guests' data.
type Driver struct{ s *hosts.Set }

// NewDriver returns the storage steps' Driver on s.
func NewDriver(s *hosts.Set) Driver { return Driver{s: s} }

// observe returns the run's observation of host with its storage.
func (pd Driver) observe(host string) (*View, error) {
	o, err := pd.s.Observe(host)
	if err != nil {
		return nil, err
	}
	return Of(o), nil
}

// poolObs is what was seen of one pool.
type poolObs struct {
	Exists, Active, Autostart bool
	Type, Path                string
}

// poolDetail is a pool step's plan for Apply.
type poolDetail struct {
	host   string
	pool   *model.Pool
	define bool // the pool does not exist
	start  bool
	auto   bool // set autostart
}

// poolStep is what a pool step's plan, or an image step's, carries
// for Apply: one of the two is set.
type poolStep struct {
	pool  *poolDetail
	image *imageDetail
}

// typed is the pool driver as a backends.Driver.
func (pd Driver) typed() backends.Typed[poolStep] {
	return backends.Typed[poolStep]{
		Name: "libvirt storage",
		PlanD: func(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, poolStep, error) {
			sp, det, err := pd.plan(step)
			return sp, det, conn.Explain(err)
		},
		ApplyD: pd.apply,
	}
}

// Plan looks the pool up and plans what is missing.
func (pd Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return pd.typed().Plan(ctx, step, run)
}

func (pd Driver) plan(step *graph.Step) (*backends.StepPlan, poolStep, error) {
	if step.Image != nil {
		sp, det, err := pd.planImage(step)
		return sp, poolStep{image: det}, err
	}
	p := step.Pool
	if p == nil {
		return nil, poolStep{}, fmt.Errorf("step %s: not a pool step", step.ID)
	}
	var o *poolObs
	err := pd.s.Retry(func() error {
		c, err := pd.s.Conn(p.Host)
		if err != nil {
			return err
		}
		o, err = observePool(pd.s, c, p)
		return err
	})
	if err != nil {
		return nil, poolStep{}, err
	}
	sp := &backends.StepPlan{Step: step, Fingerprint: hosts.Fingerprint(strconv.FormatBool(o.Exists), strconv.FormatBool(o.Active),
		strconv.FormatBool(o.Autostart), o.Type, o.Path)}
	det := &poolDetail{host: p.Host, pool: p}
	change := func(a plan.Action, reason string, before, after map[string]any) {
		sp.Changes = append(sp.Changes, plan.Change{Key: step.ID, Step: step.ID, Phase: step.Phase,
			Action: a, Impact: plan.ImpactNone, Reason: reason, Before: before, After: after})
	}
	switch {
	case !o.Exists:
		det.define, det.start, det.auto = true, true, true
		change(plan.ActionCreate, "new storage pool declared in site.cue: define, build (make its directory), start, autostart", nil,
			map[string]any{"type": p.Type, "path": p.Path, "active": true, "autostart": true})
	case o.Type != p.Type || o.Path != p.Path:
		return nil, poolStep{}, hint.Errorf(hint.Hint{Kind: hint.ByHand, Spec: "change site.cue to match", Command: "move the pool"},
			"storage pool %s on %s (host %s) exists as a %s pool at %s, but site.cue declares a %s pool at %s: site never redefines a pool (its volumes are guests' data)",
			p.Name, p.Host, p.HostName, o.Type, o.Path, p.Type, p.Path)
	default:
		before, after := map[string]any{}, map[string]any{}
		if !o.Active {
			det.start = true
			before["active"], after["active"] = false, true
		}
		if !o.Autostart {
			det.auto = true
			before["autostart"], after["autostart"] = false, true
		}
		switch {
		case det.start && det.auto:
			change(plan.ActionUpdate, "start the declared storage pool and start it with the host", before, after)
		case det.start:
			change(plan.ActionUpdate, "start the declared storage pool (it starts with the host already)", before, after)
		case det.auto:
			change(plan.ActionUpdate, "start the declared storage pool with the host (autostart); it runs already", before, after)
		}
	}
	return sp, poolStep{pool: det}, nil
}

// observePool looks up the pool p names, reading its type and target
// path from its persistent definition.
func observePool(d *hosts.Set, c *libvirt.Connect, p *model.Pool) (*poolObs, error) {
	d.Call()
	pool, err := c.LookupStoragePoolByName(p.Name)
	if conn.IsCode(err, libvirt.ERR_NO_STORAGE_POOL) {
		return &poolObs{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up storage pool %s on %s: %w", p.Name, p.Host, err)
	}
	defer pool.Free()
	o := &poolObs{Exists: true}
	d.Call()
	if o.Active, err = pool.IsActive(); err != nil {
		return nil, fmt.Errorf("storage pool %s on %s: %w", p.Name, p.Host, err)
	}
	d.Call()
	if o.Autostart, err = pool.GetAutostart(); err != nil {
		return nil, fmt.Errorf("storage pool %s on %s: %w", p.Name, p.Host, err)
	}
	d.Call()
	x, err := pool.GetXMLDesc(libvirt.STORAGE_XML_INACTIVE)
	if err != nil {
		return nil, fmt.Errorf("storage pool %s on %s: %w", p.Name, p.Host, err)
	}
	var def libvirtxml.StoragePool
	if err := def.Unmarshal(x); err != nil {
		return nil, fmt.Errorf("parse storage pool %s on %s: %w", p.Name, p.Host, err)
	}
	o.Type = def.Type
	if def.Target != nil {
		o.Path = def.Target.Path
	}
	return o, nil
}

// Apply defines, builds, starts and autostarts the pool as planned. Each
// call is an "ensure" on a pool that exists by then, so a failed run's
// next plan picks up where this one stopped.
func (pd Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return pd.typed().Apply(ctx, sp, run)
}

func (pd Driver) apply(ctx context.Context, sp *backends.StepPlan, det poolStep, run *backends.Run) (*backends.StepResult, error) {
	t := hosts.NewTally()
	counted := Driver{pd.s.Counting(t)}
	var err error
	switch {
	case det.image != nil:
		err = counted.applyImage(det.image, run)
	case det.pool != nil:
		defer pd.s.Forget(det.pool.host)
		err = counted.applyPool(det.pool)
	default:
		return nil, fmt.Errorf("step %s: its plan has nothing to apply (a bug in site: please report it)", sp.Step.ID)
	}
	return &backends.StepResult{Requests: t.Requests()}, conn.Explain(err)
}

func (pd Driver) applyPool(det *poolDetail) error {
	p := det.pool
	c, err := pd.s.Conn(det.host)
	if err != nil {
		return err
	}
	server := pd.s.Server(det.host)
	var pool *libvirt.StoragePool
	if det.define {
		def := libvirtxml.StoragePool{Type: p.Type, Name: p.Name, Target: &libvirtxml.StoragePoolTarget{Path: p.Path}}
		x, err := def.Marshal()
		if err != nil {
			return fmt.Errorf("storage pool %s: %w", p.Name, err)
		}
		done := pd.s.Calling(server, "StoragePoolDefineXML "+p.Name)
		pool, err = c.StoragePoolDefineXML(x, 0)
		done()
		if err != nil {
			return fmt.Errorf("define storage pool %s on %s: %w", p.Name, p.Host, err)
		}
		// Build makes the directory; an existing one is kept (with
		// whatever images the operator already put there).
		done = pd.s.Calling(server, "Build of storage pool "+p.Name)
		err = pool.Build(0)
		done()
		if err != nil {
			pool.Free()
			return fmt.Errorf("build storage pool %s on %s (make %s): %w", p.Name, p.Host, p.Path, err)
		}
	} else {
		done := pd.s.Calling(server, "LookupStoragePoolByName "+p.Name)
		pool, err = c.LookupStoragePoolByName(p.Name)
		done()
		if err != nil {
			return fmt.Errorf("look up storage pool %s on %s: %w", p.Name, p.Host, err)
		}
	}
	defer pool.Free()
	if det.start {
		done := pd.s.Calling(server, "Create of storage pool "+p.Name)
		err := pool.Create(0)
		done()
		if err != nil {
			return fmt.Errorf("start storage pool %s on %s: %w", p.Name, p.Host, err)
		}
	}
	if det.auto {
		done := pd.s.Calling(server, "SetAutostart of storage pool "+p.Name)
		err := pool.SetAutostart(true)
		done()
		if err != nil {
			return fmt.Errorf("autostart storage pool %s on %s: %w", p.Name, p.Host, err)
		}
	}
	return nil
}

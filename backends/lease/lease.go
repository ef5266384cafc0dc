// Package lease lets a VM publish the address its guest takes by DHCP:
// `publish: {address: "lease", ...}` in a tenant's spec compiles to A
// records that carry a model.LeaseRef instead of a value, and Driver
// wraps a zone's DNS driver to fill them in from the network's DHCP
// leases (a Reader, the libvirt backend) every time the zone is planned.
//
// A record whose VM has no lease yet (it does not exist, does not run,
// or has not asked) shows in the plan as "address known after the guest
// takes its DHCP lease": a create where the zone holds no data at its
// name and type, an update where it does. That live RRset is left
// alone: not knowing the address is not wanting the record gone. Apply
// then waits for the lease, with progress and a bounded timeout, and
// has the zone's driver add the address to the plan it was given
// (dnsplan.Completer), planned against the record observed at its name,
// which must still be there as observed when it is written; a gate that
// write needs that the run did not acknowledge stops it there.
//
// The VM stays the one writer of its names: the compiler made the
// records, with the VM as their writer, before any lease was read.
package lease

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// Reader reads leases.
type Reader interface {
	// Lease returns the IPv4 address that ref's NIC holds in its
	// network's DHCP leases, or "" when it holds none: the VM does not
	// exist or run, or its guest has not asked yet.
	Lease(ctx context.Context, ref model.LeaseRef) (string, error)
}

// DefaultTimeout bounds apply's wait for the leases a zone needs.
const DefaultTimeout = 2 * time.Minute

// Driver is a zone's DNS driver (Inner) that fills in the records of
// VMs publishing address "lease". A zone without such records goes to
// Inner untouched.
type Driver struct {
	Inner  backends.Driver
	Leases Reader // nil: this build reads no leases, and such zones fail to plan
	// Timeout bounds apply's wait for leases (DefaultTimeout when 0).
	Timeout time.Duration
	// Poll is the interval between lease reads while waiting (one
	// second when 0).
	Poll time.Duration
	// Progress hears what apply waits for; nil is silent.
	Progress func(string)
}

// detail is what a zone's plan carries for its Apply.
type detail struct {
	inner   *backends.StepPlan // Inner's plan of the zone with the known addresses
	waiting []*model.RRset     // lease records without an address
}

// HasLeases reports whether zone has records whose address is a lease.
func HasLeases(zone *model.Zone) bool {
	if zone == nil {
		return false
	}
	for _, rs := range zone.RRsets {
		if rs.Lease != nil {
			return true
		}
	}
	return false
}

// typed is the driver as a backends.Driver: its plans carry Inner's
// plan and the records waiting for a lease.
func (d *Driver) typed() backends.Typed[*detail] {
	return backends.Typed[*detail]{Name: "lease", PlanD: d.plan, ApplyD: d.apply}
}

// Plan reads the leases zone's records need and plans the zone with
// the addresses known, through Inner.
func (d *Driver) Plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, error) {
	return d.typed().Plan(ctx, step, run)
}

// Apply writes the zone, once the leases it waits for are taken (see
// apply).
func (d *Driver) Apply(ctx context.Context, sp *backends.StepPlan, run *backends.Run) (*backends.StepResult, error) {
	return d.typed().Apply(ctx, sp, run)
}

func (d *Driver) plan(ctx context.Context, step *graph.Step, run *backends.Run) (*backends.StepPlan, *detail, error) {
	if !HasLeases(step.Zone) {
		sp, err := d.Inner.Plan(ctx, step, run)
		if err != nil || sp == nil {
			return sp, nil, err
		}
		out := *sp
		return &out, &detail{inner: sp}, nil
	}
	if d.Leases == nil {
		return nil, nil, fmt.Errorf("zone %s publishes VM addresses from DHCP leases, and this build of site has no libvirt backend to read them", step.Zone.Name)
	}
	zone, waiting, seen, err := d.resolve(ctx, step.Zone)
	if err != nil {
		return nil, nil, err
	}
	// A VM the spec keeps shut off takes no lease: its records are left
	// as they are, and apply does not wait for it.
	var idle []*model.RRset
	waiting = slices.DeleteFunc(waiting, func(rs *model.RRset) bool {
		if stopped(step.TenantSpec, *rs.Lease) {
			idle = append(idle, rs)
			return true
		}
		return false
	})
	resolved := *step
	resolved.Zone = zone
	sp, err := d.Inner.Plan(ctx, &resolved, run)
	if err != nil {
		return nil, nil, err
	}
	var kept dnsplan.Kept
	if len(waiting) > 0 {
		kr, err := backends.DetailOf[dnsplan.KeptReader](sp)
		if err != nil {
			return nil, nil, hint.Errorf(hint.Hint{Kind: hint.ReportBug}, "zone %s: its DNS driver %T does not say what the zone holds at the names waiting for a DHCP lease, so their changes cannot be planned (%w)", step.Zone.Name, d.Inner, err)
		}
		kept = kr.Kept()
	}
	out := *sp
	out.Step = step
	out.Changes = append([]plan.Change(nil), sp.Changes...)
	out.Notes = append([]string(nil), sp.Notes...)
	for _, w := range waiting {
		// Live data at the name and type was kept out of the plan
		// (resolve ignores it): the address replaces it, shown as its
		// before; with none, it creates the RRset.
		c := plan.Change{
			Key: dnsplan.Key(step.Zone.Name, w.Name, w.Type), Step: step.ID, Phase: step.Phase, Tenant: step.Tenant,
			Action: plan.ActionCreate, Impact: plan.ImpactLive,
			Reason: fmt.Sprintf("address known after the guest takes its DHCP lease (VM %s); apply waits for it", w.Lease.VM),
			After:  map[string]any{"ttl": w.TTL, "lease": fmt.Sprintf("of VM %s, NIC %d", w.Lease.VM, w.Lease.NIC)},
		}
		if before, ok := kept[dnsplan.NameType{Name: w.Name, Type: w.Type}]; ok {
			c.Action, c.Before = plan.ActionUpdate, before
			// As dnsplan shows a replaced RRset: the write marks it the
			// tenant's, and sets proxied either way when it was.
			if _, ok := before["owner"]; ok {
				c.After["owner"] = step.Tenant
			}
			if _, ok := before["proxied"]; ok {
				c.After["proxied"] = w.Proxied
			}
		}
		out.Changes = append(out.Changes, c)
	}
	for _, rs := range idle {
		out.Notes = append(out.Notes, fmt.Sprintf("%s %s: VM %s is declared not running and holds no DHCP lease, so its published address is unknown; the record is left as it is", rs.Name, rs.Type, rs.Lease.VM))
	}
	sum := sha256.Sum256([]byte(sp.Fingerprint + "\x00" + seen))
	out.Fingerprint = hex.EncodeToString(sum[:])
	return &out, &detail{inner: sp, waiting: waiting}, nil
}

// stopped reports whether the tenant declares ref's VM shut off.
func stopped(t *model.Tenant, ref model.LeaseRef) bool {
	if t == nil {
		return false
	}
	for _, vm := range t.VMs {
		if vm.Name == ref.VM && vm.Host == ref.Host {
			return !vm.Running
		}
	}
	return false
}

// resolve returns a copy of zone whose lease records carry the leased
// address, without those whose VM has none (their live RRsets ignored,
// so that nothing deletes them), the latter, and the leases read, for
// the fingerprint.
func (d *Driver) resolve(ctx context.Context, zone *model.Zone) (*model.Zone, []*model.RRset, string, error) {
	z := *zone
	z.RRsets = make([]*model.RRset, 0, len(zone.RRsets))
	z.Ignore = append([]model.IgnoreRule(nil), zone.Ignore...)
	addrs := map[model.LeaseRef]string{}
	var waiting []*model.RRset
	var seen strings.Builder
	for _, rs := range zone.RRsets {
		if rs.Lease == nil {
			z.RRsets = append(z.RRsets, rs)
			continue
		}
		addr, ok := addrs[*rs.Lease]
		if !ok {
			var err error
			if addr, err = d.Leases.Lease(ctx, *rs.Lease); err != nil {
				return nil, nil, "", fmt.Errorf("read the DHCP lease of VM %s for %s: %w", rs.Lease.VM, rs.Name, err)
			}
			addrs[*rs.Lease] = addr
			fmt.Fprintf(&seen, "%s %s %d %s\n", rs.Lease.Host, rs.Lease.VM, rs.Lease.NIC, addr)
		}
		if addr == "" {
			waiting = append(waiting, rs)
			z.Ignore = append(z.Ignore, model.IgnoreRule{Name: globQuote(rs.Name), Type: rs.Type, Pos: rs.Writer.Pos})
			continue
		}
		known := *rs
		known.Values = []string{addr}
		z.RRsets = append(z.RRsets, &known)
	}
	return &z, waiting, seen.String(), nil
}

// globQuote escapes name for an IgnoreRule, whose Name is a glob: a
// wildcard owner name must match only itself.
func globQuote(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

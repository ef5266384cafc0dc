package journal

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/visible"
	"github.com/site-tools/site/compiler/words"
)

// This file undoes what an entry changed of VMs and networks, from the
// images the libvirt driver journals (backends.Image): the spec's VM or
// network with the fields the apply changed set back to their
// before-image, planned by the ordinary planner with its ordinary gates
// (a guest's restart, a network's recreation); a VM or network the
// apply created is removed as one the spec no longer declares (behind
// GATE-VM-DESTROY, GATE-NET-DESTROY); one it removed is refused.

// resUndo is the undo of one VM or network step.
type resUndo struct {
	img *backends.Image
	// fields are the image's fields the apply changed, which the undo
	// sets back; created says the apply made the resource.
	fields  []string
	created bool
}

// undoneFields are, by kind, the fields of a step's plan changes that
// its image covers: an undo puts them back. Any other is said to be
// left as it is.
var undoneFields = map[string]map[string]bool{
	"vm":      {"memory": true, "vcpus": true, "autostart": true, "running": true},
	"network": {"network": true, "autostart": true},
}

// kindWords names a kind of resource in a message.
var kindWords = map[string]string{"vm": "VM", "network": "network"}

// addResources plans the undo of the entry's VM and network changes,
// by step. It returns the keys it cannot undo for want of an image
// (an entry journalled before they were kept), and refuses an entry
// that removed a VM or network, or renamed a VM.
func (u *Undo) addResources(changes []Change) (other []string, err error) {
	byStep := map[string][]Change{}
	for _, c := range changes {
		byStep[c.Step] = append(byStep[c.Step], c)
	}
	var refused []string
	for _, step := range slices.Sorted(maps.Keys(byStep)) {
		cs, img := byStep[step], u.Entry.Images[step]
		i := slices.IndexFunc(cs, func(c Change) bool { return c.Key == step && c.Action == plan.ActionDelete })
		switch {
		case i >= 0:
			refused = append(refused, removedWords(step, img))
		case img == nil:
			for _, c := range cs {
				other = append(other, c.Key)
			}
		case img.Before == nil:
			u.res[step] = &resUndo{img: img, created: true}
		case img.Before["name"] != img.After["name"]:
			refused = append(refused, fmt.Sprintf("  %s: renamed from %s to %s by that apply; undoing a rename is not built (rename it back in the spec and apply)",
				visible.Short(step), visible.Short(img.Before["name"]), visible.Short(img.After["name"])))
		default:
			fields := img.Changed()
			slices.Sort(fields)
			if len(fields) > 0 {
				u.res[step] = &resUndo{img: img, fields: fields}
			}
			u.leftAsTheyAre(img.Kind, cs)
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("site undo refused, nothing was changed: journal entry %s did what site undo cannot take back:\n%s\nundo its DNS changes alone with --only dns, and put the rest back through the spec",
			u.Entry.ID, strings.Join(refused, "\n"))
	}
	return other, nil
}

// removedWords says why the removal of step cannot be undone.
func removedWords(step string, img *backends.Image) string {
	if strings.HasPrefix(step, "network/") {
		return fmt.Sprintf("  %s: the apply removed this network; site undo makes nothing the spec does not declare (declare it again and apply)", visible.Short(step))
	}
	return fmt.Sprintf("  %s: the apply removed this VM and the volumes site made for it: their data is gone, and site undo cannot bring them back", visible.Short(step))
}

// leftAsTheyAre notes each field of cs that the undo does not put back.
func (u *Undo) leftAsTheyAre(kind string, cs []Change) {
	seen := map[string]bool{}
	for _, c := range cs {
		for f := range c.BeforeFields {
			if !undoneFields[kind][f] && !seen[c.Key+" "+f] {
				seen[c.Key+" "+f] = true
				u.Skipped = append(u.Skipped, fmt.Sprintf("%s: %s changed by that apply is not undone (site undo puts back a VM's memory, vcpus, autostart and running, a network's mode, cidr, bridge and autostart); left as it is",
					visible.Short(c.Key), visible.Short(f)))
			}
		}
	}
}

// rewriteResources sets, in each VM and network step of g the undo
// names, the fields the apply changed back to their before-image, and
// turns the step of one the apply created into its removal. The VMs
// and networks are copies: the tenant's model stays as loaded.
func (u *Undo) rewriteResources(g *graph.Graph) error {
	found := map[string]bool{}
	for _, s := range g.Steps {
		r := u.res[s.ID]
		if r == nil {
			continue
		}
		if s.Tenant != u.Entry.Tenant {
			return fmt.Errorf("%s belongs to tenant %s in the spec now, not to %s, whose apply journal entry %s changed it: site undo refuses to change another tenant's", s.ID, s.Tenant, u.Entry.Tenant, u.Entry.ID)
		}
		found[s.ID] = true
		var err error
		switch {
		case s.Undeclared != nil && r.created:
			// The spec dropped it already: its removal is the ordinary one.
		case s.Undeclared != nil:
			err = fmt.Errorf("journal entry %s changed %s, which the spec no longer declares: site undo sets back only what the spec declares", u.Entry.ID, s.ID)
		case r.created:
			removeStep(s, r.img)
		case s.VM != nil:
			vm := *s.VM
			err = r.setVM(&vm)
			s.VM = &vm
		case s.Network != nil:
			nw := *s.Network
			err = r.setNetwork(&nw)
			s.Network = &nw
		}
		if err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(u.res)) {
		if !found[id] {
			return fmt.Errorf("journal entry %s changed %s, which is not in the scope of this run (the spec no longer declares it, or PATH leaves it out): site undo writes only what the spec declares", u.Entry.ID, id)
		}
	}
	return nil
}

// removeStep makes s the removal of the VM or network img names, as if
// the tenant's spec no longer declared it: the removal's own checks and
// gates hold (it deletes only what the owner element lists and no
// declared VM names).
func removeStep(s *graph.Step, img *backends.Image) {
	t := *s.TenantSpec
	t.VMs = slices.DeleteFunc(slices.Clone(t.VMs), func(v *model.VM) bool { return img.Kind == "vm" && v.Host == img.Host && v.Name == img.Name })
	t.Networks = slices.DeleteFunc(slices.Clone(t.Networks), func(n *model.Network) bool {
		return img.Kind == "network" && n.Host == img.Host && n.Name == img.Name
	})
	s.TenantSpec, s.VM, s.Network = &t, nil, nil
	s.Undeclared = &graph.Undeclared{Host: img.Host, Name: img.Name}
}

// setVM sets vm's fields the apply changed to the before-image.
func (r *resUndo) setVM(vm *model.VM) error {
	for _, f := range r.fields {
		v := r.img.Before[f]
		var err error
		switch f {
		case "memory":
			vm.MemoryBytes, err = strconv.ParseUint(v, 10, 64)
		case "vcpus":
			vm.VCPUs, err = strconv.Atoi(v)
		case "autostart":
			vm.Autostart, err = strconv.ParseBool(v)
		case "running":
			vm.Running, err = strconv.ParseBool(v)
		}
		if err != nil {
			return fmt.Errorf("the journalled %s of VM %s before the apply, %q, is not one site writes: %w", f, vm.Name, visible.Short(v), err)
		}
	}
	return nil
}

// setNetwork sets nw's fields the apply changed to the before-image (a
// field absent from it, such as the cidr of a bridge network, is unset).
func (r *resUndo) setNetwork(nw *model.Network) error {
	for _, f := range r.fields {
		v := r.img.Before[f]
		var err error
		switch f {
		case "mode":
			nw.Mode = model.NetMode(v)
			if !slices.Contains([]model.NetMode{model.NetNAT, model.NetIsolated, model.NetBridge}, nw.Mode) {
				err = fmt.Errorf("not a mode")
			}
		case "cidr":
			if v != "" {
				_, err = netip.ParsePrefix(v)
			}
			nw.CIDR = v
		case "bridge":
			nw.Bridge = v
		case "autostart":
			nw.Autostart, err = strconv.ParseBool(v)
		}
		if err != nil {
			return fmt.Errorf("the journalled %s of network %s before the apply, %q, is not one site writes: %w", f, nw.Name, visible.Short(v), err)
		}
	}
	return nil
}

// checkResources lists, for the undo's plan p of steps, the fields of
// a VM or network someone changed since the apply (live is neither what
// it left nor what it found), and those the plan would change beyond
// the apply's (the spec and what is live differ there).
func (u *Undo) checkResources(steps map[string]*backends.StepPlan) (changed, beyond []string) {
	for _, id := range slices.Sorted(maps.Keys(u.res)) {
		r := u.res[id]
		now := backends.ImageOf(steps[id])
		if r.created || now == nil {
			continue
		}
		for _, f := range r.fields {
			if live := now.Before[f]; live != r.img.After[f] && live != r.img.Before[f] {
				changed = append(changed, fmt.Sprintf("  %s: %s: the apply left %s, live is %s", visible.Short(id), f, shown(r.img.After[f]), shown(live)))
			}
		}
		for _, f := range now.Changed() {
			if !slices.Contains(r.fields, f) {
				beyond = append(beyond, fmt.Sprintf("  %s: %s %s → %s", visible.Short(id), f, shown(now.Before[f]), shown(now.After[f])))
			}
		}
	}
	slices.Sort(beyond)
	return changed, beyond
}

// shown is an image's value in a message.
func shown(v string) string {
	if v == "" {
		return "(none)"
	}
	return visible.Short(v)
}

// resourceRefusals are the messages of Check for what checkResources
// found, and for the changes of steps the undo needs beyond its own.
func resourceRefusals(id string, changed, beyond []string) []string {
	var msg []string
	if len(changed) > 0 {
		msg = append(msg, fmt.Sprintf("%s of VMs or networks changed by someone else since journal entry %s; site undo puts back only what that apply left as it wrote it:\n%s",
			words.Count(len(changed), "field was", "fields were"), id, strings.Join(changed, "\n")))
	}
	if len(beyond) > 0 {
		msg = append(msg, fmt.Sprintf("the undo would also change %s of VMs, networks or what they need that journal entry %s did not (the spec and what is live differ there): converge the spec with site apply first, or revert it, then undo:\n%s",
			words.Count(len(beyond), "thing", "things"), id, strings.Join(beyond, "\n")))
	}
	return msg
}

// onlyPending reports whether c, a change of a step the undo needs but
// does not undo, only shows what waits for a restart: a next-boot change
// of a VM or network whose definition already has every field its spec
// sets (so applying it writes nothing of the spec's).
func onlyPending(c plan.Change, sp *backends.StepPlan) bool {
	img := backends.ImageOf(sp)
	return c.Impact == plan.ImpactNextBoot && img != nil && img.Before != nil && len(img.Changed()) == 0
}

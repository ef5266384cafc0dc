//go:build cgo && libvirt_dlopen

package vmstep

import (
	"fmt"
	"strings"
	"time"

	"libvirt.org/go/libvirt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/libvirt/hosts"
)

// This file holds a guest's power changes: restart, stop (shut down,
// then force off) and undefine.

// restart stops the guest (see stop) and starts it again, so that its
// pending definition becomes the live one.
func (a *applier) restart(dom *libvirt.Domain, name string) error {
	if err := a.stop(dom, name); err != nil {
		return err
	}
	done := a.calling("Create of domain " + name)
	err := dom.Create()
	done()
	if err != nil {
		return fmt.Errorf("start %s on %s after the restart's shutdown: %w", name, a.host, err)
	}
	a.res.Notes = append(a.res.Notes, name+" restarted: pending changes are now live")
	return nil
}

// undefine forces a running guest off, then removes its definition,
// with its NVRAM when libvirt refuses to leave that behind.
func (a *applier) undefine(dom *libvirt.Domain, name string) error {
	done := a.calling("IsActive of domain " + name)
	active, err := dom.IsActive()
	done()
	if err == nil && active {
		done := a.calling("Destroy of domain " + name)
		err := dom.Destroy()
		done()
		if err != nil {
			return fmt.Errorf("force off %s on %s before undefining it: %w", name, a.host, err)
		}
	}
	done = a.calling("Undefine of domain " + name)
	err = dom.Undefine()
	done()
	if err != nil {
		if !strings.Contains(err.Error(), "nvram") {
			return fmt.Errorf("undefine %s on %s: %w", name, a.host, err)
		}
		done := a.calling("UndefineFlags of domain " + name)
		err := dom.UndefineFlags(libvirt.DOMAIN_UNDEFINE_NVRAM)
		done()
		if err != nil {
			return fmt.Errorf("undefine %s on %s with its NVRAM: %w", name, a.host, err)
		}
	}
	return nil
}

// stop asks the guest to shut down, waits up to the timeout, then forces
// it off.
func (a *applier) stop(dom *libvirt.Domain, name string) error {
	if t := a.d.Opts.ShutdownTimeout; t > 0 {
		done := a.calling("Shutdown of domain " + name)
		err := dom.Shutdown()
		done()
		if err == nil {
			// The wait itself is the guest's, not the daemon's: only
			// each IsActive it polls with is named, so a slow guest is
			// never reported as a host that does not answer; the wait
			// is said on its own, as it may last minutes.
			say := a.d.Opts.Run.Say
			say(fmt.Sprintf("asked guest %s on %s to shut down; waiting up to %s (%s), then forcing it off", name, a.host, t, hosts.ShutdownTimeoutEnv))
			start := time.Now()
			deadline, next := start.Add(t), start.Add(10*time.Second)
			for time.Now().Before(deadline) {
				if a.run.Interrupted() {
					// Forcing it off or starting it again would be a
					// new request after the interrupt.
					return fmt.Errorf("guest %s on %s was asked to shut down, and after the interrupt it is neither forced off nor started again: %w; run site apply again to converge", name, a.host, backends.ErrInterrupted)
				}
				done := a.calling("IsActive of domain " + name)
				active, err := dom.IsActive()
				done()
				if err != nil {
					return fmt.Errorf("wait for %s on %s to shut down: %w", name, a.host, err)
				}
				if !active {
					say(fmt.Sprintf("guest %s shut down after %s", name, time.Since(start).Round(time.Second)))
					return nil
				}
				if time.Now().After(next) {
					say(fmt.Sprintf("still waiting for guest %s to shut down (%s of %s)", name, time.Since(start).Round(time.Second), t))
					next = next.Add(10 * time.Second)
				}
				time.Sleep(250 * time.Millisecond)
			}
			say(fmt.Sprintf("guest %s did not shut down within %s: forcing it off", name, t))
		}
		a.res.Notes = append(a.res.Notes, fmt.Sprintf("%s did not shut down within %s: forced off", name, t))
	}
	done := a.calling("Destroy of domain " + name)
	err := dom.Destroy()
	done()
	if err != nil {
		return fmt.Errorf("force off %s on %s: %w", name, a.host, err)
	}
	return nil
}

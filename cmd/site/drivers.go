package main

import (
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
)

// Backends register here from their own driver_*.go file, so that a
// backend that is not built is simply absent and says so.
var (
	kindDrivers     = map[graph.Kind]backends.Driver{} // secret, network, vm
	providerDrivers = map[string]backends.Driver{}     // DNS zones by provider kind
	backendNames    = map[string]string{}              // name -> short description for `site version`
)

// driverFor picks the backend that converges step.
func driverFor(step *graph.Step) (backends.Driver, error) {
	if step.Kind == graph.KindZone {
		kind := step.Zone.Provider.Kind()
		if d, ok := providerDrivers[kind]; ok {
			return d, nil
		}
		return nil, fmt.Errorf("step %s: this build of site has no %s backend", step.ID, kind)
	}
	if d, ok := kindDrivers[step.Kind]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("step %s: this build of site has no backend for %s steps", step.ID, step.Kind)
}

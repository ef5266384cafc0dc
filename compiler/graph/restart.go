package graph

import (
	"fmt"
	"sort"
	"strings"
)

// CheckRestarts refuses a --restart (TENANT/VM) that names no VM in g:
// like a misspelt --ack, it would otherwise be silently ignored, and the
// guest the user meant would keep running on its old definition.
func (g *Graph) CheckRestarts(restarts []string) error {
	if len(restarts) == 0 {
		return nil
	}
	var inScope []string
	have := map[string]bool{}
	for _, s := range g.Steps {
		if s.VM != nil {
			name := s.VM.Tenant + "/" + s.VM.Name
			have[name] = true
			inScope = append(inScope, name)
		}
	}
	sort.Strings(inScope)
	for _, r := range restarts {
		if have[r] {
			continue
		}
		if len(inScope) == 0 {
			return fmt.Errorf("--restart %s: no VM is in scope (check the spec paths, --only and --target)", r)
		}
		return fmt.Errorf("--restart %s: no such VM in scope; the VMs in scope are %s", r, strings.Join(inScope, ", "))
	}
	return nil
}

package graph

import (
	"sort"
	"strings"

	"github.com/site-tools/site/compiler/plan"
)

// This file is what the shell completes from a graph and the phases:
// cmd/site keeps the cobra glue.

// CompleteSteps are g's step IDs that begin with prefix, sorted, as
// --target takes them.
func (g *Graph) CompleteSteps(prefix string) []string {
	var out []string
	for _, s := range g.Steps {
		if strings.HasPrefix(s.ID, prefix) {
			out = append(out, s.ID)
		}
	}
	sort.Strings(out)
	return out
}

// CompleteVMs are g's VMs as --restart names them, TENANT/VM, that
// begin with prefix, sorted.
func (g *Graph) CompleteVMs(prefix string) []string {
	var out []string
	for _, s := range g.Steps {
		if s.VM != nil {
			if name := s.VM.Tenant + "/" + s.VM.Name; strings.HasPrefix(name, prefix) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// CompletePhases completes the last of a comma-separated list of
// phases (--only), leaving out the phases already in it; each
// candidate is the whole list.
func CompletePhases(list string) []string {
	given, last := "", list
	if i := strings.LastIndexByte(list, ','); i >= 0 {
		given, last = list[:i+1], list[i+1:]
	}
	have := map[string]bool{}
	for _, p := range strings.Split(given, ",") {
		have[p] = true
	}
	var out []string
	for _, p := range plan.Phases {
		if !have[string(p)] && strings.HasPrefix(string(p), last) {
			out = append(out, given+string(p))
		}
	}
	return out
}

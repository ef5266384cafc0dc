package graph

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/plan"
	"github.com/site-tools/site/compiler/spelling"
)

// ParsePhases parses a comma-separated --only value.
func ParsePhases(s string) ([]plan.Phase, error) {
	if s == "" {
		return nil, nil
	}
	var out []plan.Phase
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, p := range plan.Phases {
			if string(p) == f {
				out = append(out, p)
				ok = true
			}
		}
		if !ok {
			if near := spelling.Nearest(f, phaseNames()); near != "" {
				return nil, fmt.Errorf("unknown phase %q: did you mean %s? (use one or more of %s, separated by commas)", f, near, phaseList())
			}
			return nil, fmt.Errorf("unknown phase %q: use one or more of %s, separated by commas", f, phaseList())
		}
	}
	return out, nil
}

// phaseList names the phases for messages: "secrets, network, ...".
func phaseList() string {
	return strings.Join(phaseNames(), ", ")
}

// phaseNames are the names --only takes, in the order phases run.
func phaseNames() []string {
	names := make([]string, len(plan.Phases))
	for i, p := range plan.Phases {
		names[i] = string(p)
	}
	return names
}

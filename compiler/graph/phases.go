package graph

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/plan"
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
			return nil, fmt.Errorf("unknown phase %q: use one or more of %s, separated by commas", f, phaseList())
		}
	}
	return out, nil
}

// phaseList names the phases for messages: "secrets, network, ...".
func phaseList() string {
	names := make([]string, len(plan.Phases))
	for i, p := range plan.Phases {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

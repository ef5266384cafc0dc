package cloudflare

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// checkLimits refuses, before anything is sent, an operation Cloudflare
// would refuse for its values (Rules: a TTL outside 1 or 60..86400, an
// SRV target that is not a hostname). vet catches these in the spec;
// this is the last check, since a refusal in a later batch would leave
// the earlier batches applied.
func checkLimits(zone string, ops []op) error {
	var bad []string
	for _, o := range ops {
		if o.kind == opDelete {
			continue
		}
		b := o.body
		what := strings.TrimSpace(o.name + " " + b.Type)
		// A patch that leaves the TTL alone does not send one (0).
		if b.TTL != 0 {
			if err := Rules.TTLError(int64(b.TTL)); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", what, err))
			}
		}
		for _, v := range Rules.Values {
			if t, ok := b.Data[v.Field].(string); ok && v.Type == b.Type {
				if err := Rules.FieldError(b.Type, v.Field, t); err != nil {
					bad = append(bad, fmt.Sprintf("%s: %v", what, err))
				}
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("zone %s: Cloudflare would refuse %s, so nothing was sent:\n  %s", zone, words.Count(len(bad), "operation", "operations"), strings.Join(bad, "\n  "))
}

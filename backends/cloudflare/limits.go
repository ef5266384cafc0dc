package cloudflare

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/rdata"
	"github.com/site-tools/site/compiler/words"
)

// checkLimits refuses, before anything is sent, an operation Cloudflare
// would refuse for its values (a TTL outside 1 or 60..86400, an SRV
// target that is not a hostname). vet catches these in the spec; this is
// the last check, since a refusal in a later batch would leave the
// earlier batches applied.
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
			if err := rdata.CloudflareTTL(int64(b.TTL)); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", what, err))
			}
		}
		if b.Type == "SRV" {
			if t, ok := b.Data["target"].(string); ok && (t == "." || t == "") {
				bad = append(bad, fmt.Sprintf("%s: SRV target %q is refused by Cloudflare, whose API takes only a hostname there", what, t))
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("zone %s: Cloudflare would refuse %s, so nothing was sent:\n  %s", zone, words.Count(len(bad), "operation", "operations"), strings.Join(bad, "\n  "))
}

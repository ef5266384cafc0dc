package dnsplan

import (
	"fmt"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

// The "many at once" gates: a plan that deletes (GATE-DNS-DELETE-MANY)
// or rewrites (GATE-DNS-UPDATE-MANY) a large share of the RRsets site
// owns in a zone is more likely a mistake in the spec (a zone's records
// dropped, a file cut short, a template gone wrong) than an intent.
// Both share one percentage rule, overShare; deletes add rules of their
// own for small zones.

// overShare says why n of the ours RRsets the tenant owns in a zone are
// too many to change at once without a gate: more than percent of them,
// in a zone holding at least min. It returns "" when they are not; flag
// names the option that moves the percentage, for the message.
func overShare(n, ours, percent, min int, flag string) string {
	if percent >= 100 || ours == 0 || ours < min || n*100 <= percent*ours {
		return ""
	}
	// Rounded up: a share just over the threshold never reads as it.
	return fmt.Sprintf("%d %%, over the %d %% %s allows", (n*100+ours-1)/ours, percent, flag)
}

// deleteMany says why n deletes of the ours rrsets this tenant owns in
// a zone need GATE-DNS-DELETE-MANY, lost of them at names the spec no
// longer wants at all, or returns "" when they do not. The percentage
// rule starts at Run.DeleteManyMin so that a big zone may shed a few
// rrsets; a small zone would then have no net at all, so losing every
// name of ours, or more than half of 3 or more, is gated whatever the
// size. A type changed at a kept name (our A giving way to our CNAME)
// loses nothing and does not count there. The rule is named because the
// way past it differs: --delete-threshold moves the percentage alone.
func deleteMany(n, lost, ours int, run *backends.Run) string {
	switch {
	case run.DeleteManyPercent >= 100:
		return "" // the operator allowed every delete (--delete-threshold 100)
	case lost == 0:
	case lost == ours:
		return "no name site owns in this zone is left"
	case ours >= 3 && lost*2 > ours:
		if lost == n {
			return "more than half"
		}
		return fmt.Sprintf("%d of them at names the spec no longer has, more than half", lost)
	}
	return overShare(n, ours, run.DeleteManyPercent, run.DeleteManyMin, "--delete-threshold")
}

// updateMany gates the plan's updates of our RRsets behind
// GATE-DNS-UPDATE-MANY when they are more than Run.UpdateManyPercent of
// the ours RRsets the tenant owns in the zone (in a zone of at least
// Run.DeleteManyMin of them): octoDNS's rule, 30 % of a zone of 10 or
// more by default. Creates, adoptions and overwrites do not count: what
// was not ours is not rewritten by a mistake in our spec alone, and
// overwriting has its own gate.
func (p *planner) updateMany(ours int, run *backends.Run) {
	n := len(p.updates)
	if n == 0 {
		return
	}
	why := overShare(n, ours, run.UpdateManyPercent, run.DeleteManyMin, "--update-threshold")
	if why == "" {
		return
	}
	for _, ci := range p.updates {
		c := &p.res.Changes[ci]
		c.Gates = append(c.Gates, plan.GateDNSUpdateMany)
		c.Reason = fmt.Sprintf("%d of the %d RRsets site owns in this zone change at once: %s", n, ours, why)
	}
}

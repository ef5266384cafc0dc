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

// overShare says why n changes to a zone's RRsets (of those site owns,
// or the spec wants) are too many to make at once without a gate: more
// than percent of them, in a zone holding at least min. It returns ""
// when they are not; flag names the option that moves the percentage,
// for the message.
func overShare(n, of, percent, min int, flag string) string {
	if percent >= 100 || of == 0 || of < min || n*100 <= percent*of {
		return ""
	}
	// Rounded up: a share just over the threshold never reads as it.
	return fmt.Sprintf("%d %%, over the %d %% %s allows", (n*100+of-1)/of, percent, flag)
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
// the wanted RRsets the spec has in the zone, in a zone of at least
// Run.DeleteManyMin of them: octoDNS's rule, 30 % of a zone of 10 or
// more by default. The share is of what the spec wants, which is what
// site owns in the zone once applied, and not of what lives there now:
// a re-run after an apply that stopped half-way then counts the same
// updates against the same zone as the first run did. Creates,
// adoptions and overwrites do not count: what was not ours is not
// rewritten by a mistake in our spec alone, and overwriting has its own
// gate.
func (p *planner) updateMany(wanted int, run *backends.Run) {
	n := len(p.updates)
	if n == 0 {
		return
	}
	why := overShare(n, wanted, run.UpdateManyPercent, run.DeleteManyMin, "--update-threshold")
	if why == "" {
		return
	}
	for _, ci := range p.updates {
		c := &p.res.Changes[ci]
		c.Gates = append(c.Gates, plan.GateDNSUpdateMany)
		c.Reason = fmt.Sprintf("%d of the %d RRsets the spec has in this zone change at once: %s", n, wanted, why)
	}
}

// lost counts the rrsets of gone, less the apex NS, at names the spec
// no longer wants. Wanted names are collected only here, on the rare
// path of a plan with deletes.
func (p *planner) lost(gone []*RRset) int {
	names := make(map[string]bool, len(p.step.Zone.RRsets))
	for _, w := range p.step.Zone.RRsets {
		names[w.Name] = true
	}
	n := 0
	for _, l := range gone {
		if !names[l.Name] && !(l.Type == "NS" && l.Name == p.step.Zone.Name) {
			n++
		}
	}
	return n
}

package dnsplan

import (
	"context"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/model"
)

// KeptReader is the detail of a zone's plan from a provider that plans
// with Plan. A wrapper that takes RRsets whose values it does not know
// yet out of the zone, ignoring their live data meanwhile
// (backends/lease, for an address a guest has not leased), reads it to
// show each as it will be written: an update of the data kept at its
// name and type, with that data as its Before, else a create, as Plan
// shows a wanted RRset.
type KeptReader interface {
	Kept() Kept
}

// Completer is a DNS driver whose plan can take, when it is applied,
// RRsets whose values were not known when it was made: the DS of a
// child signed in the same apply, the address a guest's DHCP lease
// gives (backends/lease). Complete returns sp with rrsets added (sp is
// not changed), each planned against what sp's observation showed at
// its name and type, as Plan would have; the Apply of the plan returned
// reads those RRsets again before it writes, and writes nothing when
// one is no longer what was observed. It refuses a write that needs a
// gate the run has not acknowledged: the plan shown could not ask for
// it. The rest of sp is applied as it was planned.
type Completer interface {
	Complete(ctx context.Context, sp *backends.StepPlan, rrsets []*model.RRset, run *backends.Run) (*backends.StepPlan, error)
}

package backends

import (
	"context"

	"github.com/site-tools/site/compiler/graph"
)

// What one step learns that the steps depending on it need travels along
// the graph's edges: a step's plan and its result carry an Output, and
// the engine hands each step the Outputs of its dependencies, and of
// no other step, as its Inputs (WithInputs) when it plans and when it
// applies. A step out of the run's scope, or one that does not depend
// on another, sees nothing of it, whatever order the steps ran in.

// Output is what a step tells the steps that depend on it.
type Output struct {
	// Signer is what a signed zone's step read of the DS its parent
	// must publish (at plan time), or made (an apply that signed it);
	// nil for any other step.
	Signer *SignerDS
}

// Empty reports whether o tells nothing.
func (o Output) Empty() bool { return o.Signer == nil }

// SignerDS is what a signed zone's own step read of the DS its parent
// must publish: Cloudflare's DNSSEC details, or the keys of a PowerDNS
// zone site signs. The parent's step depends on the child's
// (compiler/graph), so it finds this among its Inputs; a parent whose
// provider cannot read the child's signer has no other way to learn it.
type SignerDS struct {
	// DS are the records the parent must publish, as "keytag algorithm
	// digesttype digest" (digest in lower-case hex); empty while the
	// signer publishes none.
	DS []string
	// Status is the signer's word for its DNSSEC state ("active",
	// "pending", "disabled", ...), for the parent's note.
	Status string
	// Pending says the zone is signed in this apply: its DS is known
	// once its step has applied, and its result then says it.
	Pending bool
}

// Inputs are the Outputs of a step's dependencies, by their step ID.
type Inputs map[string]Output

// SignerOf returns what the step of zone (a signed child) told, and
// false when it told nothing to this step: it is not a dependency, it
// is out of scope, or it could not be observed. Then nothing is known,
// and nothing may be deleted for it.
func (in Inputs) SignerOf(zone string) (SignerDS, bool) {
	o, ok := in[graph.ZoneStepID(zone)]
	if !ok || o.Signer == nil {
		return SignerDS{}, false
	}
	return *o.Signer, true
}

type inputsKey struct{}

// WithInputs returns ctx carrying in, the Outputs of the dependencies
// of the step whose Plan or Apply it is passed to. The engine calls it;
// a test calling a driver directly may too.
func WithInputs(ctx context.Context, in Inputs) context.Context {
	return context.WithValue(ctx, inputsKey{}, in)
}

// InputsOf returns the Inputs ctx carries: none when the caller passed
// none (a step without dependencies, a driver called on its own).
func InputsOf(ctx context.Context) Inputs {
	in, _ := ctx.Value(inputsKey{}).(Inputs)
	return in
}

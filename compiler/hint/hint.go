// Package hint carries the advice an error gives its user as a typed
// value: what kind of thing to do next (run again, acknowledge a gate,
// wait or break a lock, raise a timeout) and the names it needs. The
// error's text still ends with the advice, spelled by Render in one
// place, but code and tests can ask what the advice is (Of(err).Kind)
// instead of matching words that a rewording would break.
//
// It imports nothing of site's, so backends, which never depend on
// CUE, use it as the compiler and the commands do.
package hint

import (
	"errors"
	"fmt"
)

// Kind is what the user is told to do.
type Kind int

const (
	// None: no advice.
	None Kind = iota
	// RunAgain: nothing is wrong with the spec; a later run converges.
	RunAgain
	// Acknowledge: the step needs Gate acknowledged; rerun with --ack.
	Acknowledge
	// ReviewThenAcknowledge: apply found a change behind Gate that the
	// plan shown did not hold: look at it with site diff, then ack it.
	ReviewThenAcknowledge
	// WaitOrUnlock: another run holds (or claims, when Claim) Tenant's
	// apply lock: wait for it, or break it with site unlock.
	WaitOrUnlock
	// RaiseTimeout: a server did not answer within Setting; check that
	// it runs and is reachable, or raise Setting for a slow one.
	RaiseTimeout
)

var kindNames = [...]string{"None", "RunAgain", "Acknowledge", "ReviewThenAcknowledge", "WaitOrUnlock", "RaiseTimeout"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Hint is one piece of advice: its Kind and the names rendering it
// needs (which fields a Kind uses is said beside the Kind).
type Hint struct {
	Kind    Kind
	Gate    string // Acknowledge, ReviewThenAcknowledge
	Tenant  string // WaitOrUnlock
	Claim   bool   // WaitOrUnlock: a claim being taken, not a hold
	Setting string // RaiseTimeout: the flag, e.g. --request-timeout
}

// Render spells h the way site's messages end; "" for None.
func (h Hint) Render() string {
	switch h.Kind {
	case RunAgain:
		return "run site apply again"
	case Acknowledge:
		return "rerun with --ack " + h.Gate
	case ReviewThenAcknowledge:
		return "run site diff again and apply with --ack " + h.Gate
	case WaitOrUnlock:
		if h.Claim {
			return "run again in a moment, give --lock-timeout to wait, or, if that run is gone, break the claim with site unlock " + h.Tenant + " --ack GATE-LOCK-BREAK"
		}
		return "wait for it to finish and run again, give --lock-timeout to wait, or, if that run is dead, wait for its lease to run out or break the lock with site unlock " + h.Tenant + " --ack GATE-LOCK-BREAK"
	case RaiseTimeout:
		return "check that the server runs and that this host reaches it, or raise " + h.Setting + " for a server that is only slow"
	}
	return ""
}

// Hinter is an error that knows its advice: an error type whose text
// ends with Render of its Hint implements it, as Wrap's errors do.
type Hinter interface {
	error
	Hint() Hint
}

// Of returns the advice of the first error in err's chain that has
// one (errors.As), or the zero Hint (Kind None).
func Of(err error) Hint {
	var h Hinter
	if errors.As(err, &h) {
		return h.Hint()
	}
	return Hint{}
}

// String is Render, so that a message can place h with %v or %s.
func (h Hint) String() string { return h.Render() }

// Wrap returns err with h attached; its text is err's, then "; " and
// h rendered. A nil err stays nil.
func Wrap(err error, h Hint) error {
	if err == nil {
		return nil
	}
	return &wrapped{err: err, hint: h, text: err.Error() + "; " + h.Render()}
}

// Errorf is fmt.Errorf (%w included) with h attached, for a message
// that places its advice elsewhere than at its end: it gives h among
// args, e.g. Errorf(h, "... nothing was changed (%v)", h).
func Errorf(h Hint, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &wrapped{err: err, hint: h, text: err.Error()}
}

type wrapped struct {
	err  error
	hint Hint
	text string
}

func (w *wrapped) Error() string { return w.text }
func (w *wrapped) Unwrap() error { return w.err }
func (w *wrapped) Hint() Hint    { return w.hint }

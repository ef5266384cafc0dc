// Package hint carries the advice an error gives its user as a typed
// value: what kind of thing to do next (run again, acknowledge a gate,
// wait or break a lock, raise a timeout, fix a host by hand...) and the
// names it needs. An error's text still ends with the advice, spelled
// by Render in one place, so that any place printing the error keeps
// it; site's commands print the cause and the advice apart (Split), and
// code and tests ask what the advice is (Of(err).Kind) instead of
// matching words that a rewording would break.
//
// It imports nothing of site's, so backends, which never depend on
// CUE, use it as the compiler and the commands do.
package hint

import (
	"errors"
	"fmt"
	"strings"
)

// Hint is one piece of advice: its Kind and the names rendering it
// needs (which fields a Kind uses is said beside the Kind). It stays
// comparable (==), so that tests compare whole hints.
type Hint struct {
	Kind    Kind
	Gate    string // a gate id: Acknowledge, ReviewThenAcknowledge, RemoveOtherFirst, ReachStore
	Tenant  string // a tenant: WaitOrUnlock, RemoveOtherFirst, Adopt, FreeVolume
	Claim   bool   // WaitOrUnlock: a claim being taken, not a hold
	InRun   bool   // RemoveOtherFirst: the other tenant's file is in this run
	Deletes bool   // FreeVolume: the removal deletes the volume too
	Object  string // a host object's name: FreeVolume (the domain)
	Setting string // a flag or variable: RaiseTimeout, TrustCA, RenewToken, NewSecretID, CheckGuestDHCP
	Target  string // a step id for --target: RemoveOtherFirst, StartPool
	Command string // a command to run: see each Kind
	Spec    string // what to write in a spec file (or another way out): see each Kind
}

// Hinter is an error that knows its advice: an error type whose text
// ends with "; " (or ": ", or a new line) and Render of its Hint
// implements it, as
// Wrap's errors do.
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

// KindOf is Of(err).Kind.
func KindOf(err error) Kind { return Of(err).Kind }

// String is Render, so that a message can place h with %v or %s.
func (h Hint) String() string { return h.Render() }

// Wrap returns err with h attached; its text is err's, then "; " and
// h rendered. A nil err stays nil; a Hint of Kind None adds nothing.
func Wrap(err error, h Hint) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if h.Kind != None {
		text += "; " + h.Render()
	}
	return &wrapped{err: err, hint: h, text: text}
}

// Errorf is Wrap(fmt.Errorf(format, args...), h): the message says
// what is wrong (the cause, %w included), and h what to do.
func Errorf(h Hint, format string, args ...any) error {
	return Wrap(fmt.Errorf(format, args...), h)
}

// Enclose puts before and after around the cause of err (its text
// without its advice) and keeps the advice last, so that a wrapper that
// adds words after the cause (a list of what exists, say) does not bury
// the advice in the middle; err stays in the chain (errors.As).
func Enclose(before string, err error, after string) error {
	if err == nil {
		return nil
	}
	cause, h, _ := Split(err)
	text := before + cause + after
	if h.Kind != None {
		text += "; " + h.Render()
	}
	return &wrapped{err: err, hint: h, text: text}
}

// Split returns err's text with its advice taken off the end, and the
// advice: what site prints as the error and as its hint line. When
// something wrapping err wrote after the advice, the text is whole
// (the advice stays in it) and apart is false: printing the hint again
// would say it twice.
func Split(err error) (cause string, h Hint, apart bool) {
	text := err.Error()
	h = Of(err)
	cause = Trim(text, h)
	return cause, h, cause != text
}

// Trim is Split of a text already made from an error whose advice
// was h: the text without the advice at its end.
func Trim(text string, h Hint) string {
	if h.Kind == None {
		return text
	}
	return TrimText(text, h.Render())
}

// TrimText is Trim for advice known only as its rendered text (a
// JSON's Text).
func TrimText(text, advice string) string {
	for _, sep := range []string{"; ", ": ", "\n"} {
		if c, ok := strings.CutSuffix(text, sep+advice); ok {
			return c
		}
	}
	return text
}

// Redone is the error of text, a rewrite of the text of an error
// whose advice was h (its secrets redacted, say), keeping h: a rewrite
// that flattened the error to a string would drop its advice's kind.
func Redone(text string, h Hint) error {
	if h.Kind == None {
		return errors.New(text)
	}
	if c := Trim(text, h); c != text {
		return Wrap(errors.New(c), h)
	}
	return &wrapped{err: errors.New(text), hint: h, text: text}
}

// JSON is a hint as site's JSON output writes it: its kind's name
// (Kind.String) and its text (Render).
type JSON struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// ToJSON returns h's JSON form; nil for Kind None, so that an
// omitempty field leaves it out.
func (h Hint) ToJSON() *JSON {
	if h.Kind == None {
		return nil
	}
	return &JSON{Kind: h.Kind.String(), Text: h.Render()}
}

type wrapped struct {
	err  error
	hint Hint
	text string
}

func (w *wrapped) Error() string { return w.text }
func (w *wrapped) Unwrap() error { return w.err }
func (w *wrapped) Hint() Hint    { return w.hint }

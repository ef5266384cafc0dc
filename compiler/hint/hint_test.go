package hint

import (
	"errors"
	"fmt"
	"testing"
)

func TestWrapAndOf(t *testing.T) {
	cause := errors.New("zone example.org: created, but reading its SOA failed")
	h := Hint{Kind: RunAgain}
	err := fmt.Errorf("apply: %w", Wrap(cause, h))
	if got := Of(err); got != h {
		t.Errorf("Of = %+v, want %+v", got, h)
	}
	if !errors.Is(err, cause) {
		t.Error("Wrap hides its cause from errors.Is")
	}
	if want := "apply: " + cause.Error() + "; run site apply again to converge"; err.Error() != want {
		t.Errorf("text = %q, want %q", err.Error(), want)
	}
	if Wrap(nil, h) != nil {
		t.Error("Wrap(nil) is not nil")
	}
	if got := Of(cause); got.Kind != None {
		t.Errorf("Of(plain error).Kind = %v, want None", got.Kind)
	}
}

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		h    Hint
		want string
	}{
		{Hint{}, ""},
		{Hint{Kind: FreeVolume, Spec: "another volume", Object: "legacy", Command: "virsh -c qemu:///system detach-disk legacy vda --config"},
			"name another volume, or have the operator remove domain legacy, which no site step removes (it carries no site owner element), or detach the volume from it (virsh -c qemu:///system detach-disk legacy vda --config)"},
		{Hint{Kind: FreeVolume, Spec: "another volume", Object: "db", Tenant: "victim", Target: "vm/qemu:///system/db", Gate: "GATE-VM-DESTROY", Deletes: true, Command: "virsh detach-disk db vda"},
			"name another volume, or free it: the step that removes domain db is vm/qemu:///system/db of tenant victim, planned once victim's spec no longer declares db (site apply tenants/victim.cue --target 'vm/qemu:///system/db' --ack GATE-VM-DESTROY; that removal deletes the volume too, which site made for domain db), or detach the volume from it (virsh detach-disk db vda)"},
		{Hint{Kind: RunAgain}, "run site apply again to converge"},
		{Hint{Kind: Acknowledge, Gate: "GATE-VM-DESTROY"}, "rerun with --ack GATE-VM-DESTROY"},
		{Hint{Kind: ReviewThenAcknowledge, Gate: "GATE-DNS-DELETE"}, "run site diff again and apply with --ack GATE-DNS-DELETE"},
		{Hint{Kind: RaiseTimeout, Setting: "--request-timeout"}, "check that the server runs and that this host reaches it, or raise --request-timeout for a server that is only slow"},
		{Hint{Kind: WaitOrUnlock, Tenant: "acme", Claim: true}, "run again in a moment, give --lock-timeout to wait, or, if that run is gone, break the claim with site unlock acme --ack GATE-LOCK-BREAK"},
	} {
		if got := tc.h.Render(); got != tc.want {
			t.Errorf("%v: Render = %q, want %q", tc.h.Kind, got, tc.want)
		}
	}
	if s := Kind(99).String(); s != "Kind(99)" {
		t.Errorf("Kind(99) = %q", s)
	}
}

// TestSplit: the cause is the text without the advice at its end,
// whichever of the separators put it there; advice a wrapper wrote
// past stays in the text (apart false).
func TestSplit(t *testing.T) {
	h := Hint{Kind: RaiseTimeout, Setting: "--request-timeout"}
	for _, tc := range []struct {
		name      string
		err       error
		cause     string
		wantHint  Hint
		wantApart bool
	}{
		{"plain", errors.New("boom"), "boom", Hint{}, false},
		{"wrapped", fmt.Errorf("step x: %w", Errorf(h, "no answer")), "step x: no answer", h, true},
		{"colon", hinted{"pdns did not answer: " + h.Render(), h}, "pdns did not answer", h, true},
		{"new line", hinted{"2 changes:\n  delete a\n" + h.Render(), h}, "2 changes:\n  delete a", h, true},
		{"advice mid-text", fmt.Errorf("%w, then more", Errorf(h, "no answer")), "no answer; " + h.Render() + ", then more", h, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cause, got, apart := Split(tc.err)
			if cause != tc.cause || got != tc.wantHint || apart != tc.wantApart {
				t.Errorf("Split = %q, %+v, %v; want %q, %+v, %v", cause, got, apart, tc.cause, tc.wantHint, tc.wantApart)
			}
		})
	}
}

type hinted struct {
	text string
	h    Hint
}

func (e hinted) Error() string { return e.text }
func (e hinted) Hint() Hint    { return e.h }

// TestToJSON: a hint's JSON names its kind as the help topic lists
// it; no advice writes nothing.
func TestToJSON(t *testing.T) {
	if j := (Hint{}).ToJSON(); j != nil {
		t.Errorf("None: %+v, want nil", j)
	}
	j := Hint{Kind: ReviewThenAcknowledge, Gate: "GATE-DNS-DELETE"}.ToJSON()
	if j == nil || j.Kind != "review_then_acknowledge" || j.Text != "run site diff again and apply with --ack GATE-DNS-DELETE" {
		t.Errorf("got %+v", j)
	}
	for _, k := range Kinds() {
		if s := k.String(); s == "" || s[0] == 'K' {
			t.Errorf("kind %d has no name", int(k))
		}
		if (Hint{Kind: k}).Render() == "" {
			t.Errorf("kind %s renders nothing", k)
		}
	}
}

// TestRedone: an error rewritten as text (redacted) keeps its advice.
func TestRedone(t *testing.T) {
	h := Hint{Kind: CheckOperatorFile, Spec: "locks: dir"}
	err := Redone("lock: dir x is inside y; "+h.Render(), h)
	if cause, got, apart := Split(fmt.Errorf("tenant a: %w", err)); cause != "tenant a: lock: dir x is inside y" || got != h || !apart {
		t.Errorf("Split = %q, %+v, %v", cause, got, apart)
	}
	if err := Redone("boom", Hint{}); KindOf(err) != None || err.Error() != "boom" {
		t.Errorf("Redone without advice = %v (%v)", err, KindOf(err))
	}
}

// TestEncloseKeepsTheAdviceLast: a wrapper that adds words after a
// cause (what exists on the host) keeps the advice at the end, where
// Split finds it, and the wrapped error in the chain.
func TestEncloseKeepsTheAdviceLast(t *testing.T) {
	type marker struct{ error }
	h := Hint{Kind: ByHand, Command: "virsh pool-start images"}
	inner := Wrap(marker{errors.New(`storage pool "images" does not exist`)}, h)
	err := Enclose("VM web: disk root: ", inner, "; pools there: default")
	cause, got, apart := Split(err)
	if got != h || !apart {
		t.Errorf("Split hint = %+v (apart %v), want %+v apart", got, apart, h)
	}
	if want := `VM web: disk root: storage pool "images" does not exist; pools there: default`; cause != want {
		t.Errorf("cause = %q, want %q", cause, want)
	}
	if !errors.As(err, new(marker)) {
		t.Error("Enclose hides the wrapped error from errors.As")
	}
	if Enclose("a", nil, "b") != nil {
		t.Error("Enclose(nil) is not nil")
	}
}

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
	if want := "apply: " + cause.Error() + "; run site apply again"; err.Error() != want {
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
		{Hint{Kind: RunAgain}, "run site apply again"},
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

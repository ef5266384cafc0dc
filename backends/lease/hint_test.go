package lease

import (
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/hint"
)

// TestNoLeaseHint: a lease not taken in time says what to do as a
// typed hint (check the guest, or raise --lease-timeout), and the
// problem the run reports still ends with it.
func TestNoLeaseHint(t *testing.T) {
	err := fmt.Errorf("step dns/a.: %w", &noLeaseError{"VM web took no DHCP lease within 2m0s, so www.a. stays unwritten"})
	want := hint.Hint{Kind: hint.CheckGuestDHCP, Setting: "--lease-timeout"}
	if got := hint.Of(err); got != want {
		t.Fatalf("hint.Of = %+v, want %+v", got, want)
	}
	if cause, _, apart := hint.Split(err); !apart || !strings.HasSuffix(cause, "stays unwritten") {
		t.Errorf("Split = %q, %v: want the cause apart from the advice", cause, apart)
	}
}

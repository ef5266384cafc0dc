package providers

import (
	"context"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
)

// TestOpenOne: site export and site disown open one provider's backend
// through one helper; one that cannot do what is asked is refused
// before any credential is read.
func TestOpenOne(t *testing.T) {
	one, err := OpenOne[backends.Disowner](context.Background(), "powerdns", "disown", "", nil)
	if err != nil {
		t.Fatalf("OpenOne(powerdns): %v", err)
	}
	if one.B == nil || one.Run == nil {
		t.Errorf("OpenOne(powerdns) = %+v, want its driver and run", one)
	}
	if err := one.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	_, err = OpenOne[backends.Disowner](context.Background(), "nope", "disown", "", nil)
	if err == nil || !strings.Contains(err.Error(), "this build of site has no nope backend that can disown") {
		t.Errorf("OpenOne(nope) = %v, want no such backend", err)
	}
}

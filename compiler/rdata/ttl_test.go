package rdata

import (
	"fmt"
	"testing"
)

func TestTTL(t *testing.T) {
	tests := []struct {
		in int64
		ok bool
	}{
		{1, true}, {300, true}, {MaxTTL, true},
		{0, false}, {-1, false}, {MaxTTL + 1, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			err := TTL(tt.in)
			if got := err == nil; got != tt.ok {
				t.Errorf("TTL(%d): got error %v, want ok=%v", tt.in, err, tt.ok)
			}
		})
	}
}

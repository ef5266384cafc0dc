package cloudflare

import (
	"testing"
)

// TestMaxAnswerFollowsThePage: the bound grows with the records a page
// or a batch's answer may hold, at maxRecordJSON each, in whole MiB.
func TestMaxAnswerFollowsThePage(t *testing.T) {
	tests := []struct {
		name string
		drv  *Driver
		want int64
	}{
		{"default page of 5,000", &Driver{}, 158 << 20},
		{"a small page: a batch's answer is larger", &Driver{PerPage: 100}, 111 << 20},
		{"a page of 50,000", &Driver{PerPage: 50000}, 1564 << 20},
		{"set", &Driver{MaxAnswerBytes: 1 << 20}, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.drv.maxAnswer(); got != tt.want {
				t.Errorf("maxAnswer() = %d MiB (%d), want %d MiB", got>>20, got, tt.want>>20)
			}
		})
	}
}

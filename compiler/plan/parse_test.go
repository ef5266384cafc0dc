package plan

import (
	"strings"
	"testing"
)

// TestParseSettings: the command line's acks, restarts and thresholds
// are checked before anything is loaded (moved here from cmd/site,
// whose apply_flags and diff_flags scripts still run it end to end).
func TestParseSettings(t *testing.T) {
	tests := []struct {
		name     string
		acks     []string
		restarts []string
		del, upd int
		want     string // substring of the error; "" for none
	}{
		{"defaults", nil, nil, 30, 30, ""},
		{"ack and restart", []string{"GATE-VM-RESTART"}, []string{"office1/files"}, 0, 100, ""},
		{"unknown gate", []string{"GATE-NOPE"}, nil, 30, 30, "GATE-NOPE"},
		{"restart without tenant", nil, []string{"files"}, 30, 30, `--restart "files": name a VM as TENANT/VM`},
		{"restart too deep", nil, []string{"a/b/c"}, 30, 30, `--restart "a/b/c"`},
		{"delete above 100", nil, nil, 101, 30, "--delete-threshold 101: use a percentage from 0 to 100"},
		{"update below 0", nil, nil, 30, -1, "--update-threshold -1: use a percentage from 0 to 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSettings("apply", tt.acks, tt.restarts, tt.del, tt.upd)
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseSettings = %v, want %q", err, tt.want)
			}
			if err != nil {
				return
			}
			if s.DeleteManyPercent != tt.del || s.UpdateManyPercent != tt.upd || len(s.Acked) != len(tt.acks) || len(s.Restart) != len(tt.restarts) {
				t.Errorf("ParseSettings = %+v, want the flags' values", s)
			}
		})
	}
}

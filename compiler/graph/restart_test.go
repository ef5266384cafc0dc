package graph

import (
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestCheckRestarts: a --restart must name a VM in the graph, and the
// error lists the VMs that are (moved here from cmd/site, whose
// apply_flags script still runs it end to end).
func TestCheckRestarts(t *testing.T) {
	withVM := &Graph{Steps: []*Step{{ID: "vm/x/keys", VM: &model.VM{Tenant: "sjc", Name: "keys"}}}}
	tests := []struct {
		name     string
		g        *Graph
		restarts []string
		want     string // substring of the error; "" for none
	}{
		{"none asked", &Graph{}, nil, ""},
		{"in scope", withVM, []string{"sjc/keys"}, ""},
		{"misspelt", withVM, []string{"sjc/kyes"}, "--restart sjc/kyes: no such VM in scope; the VMs in scope are sjc/keys"},
		{"no VM", &Graph{}, []string{"sjc/keys"}, "--restart sjc/keys: no VM is in scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.CheckRestarts(tt.restarts)
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckRestarts(%v) = %v, want %q", tt.restarts, err, tt.want)
			}
		})
	}
}

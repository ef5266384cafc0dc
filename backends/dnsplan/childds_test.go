package dnsplan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsplan"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// TestWithChildDS: what a parent wants at each signed child, from what
// the child's step told it (its Inputs): its DS (written), signed in this
// apply (a pending change, any live DS left alone), no DS or not read
// (a note, any live DS left alone). The step given is not changed.
func TestWithChildDS(t *testing.T) {
	const ds = "2371 13 2 " + "ef"
	cf := model.Provider{Cloudflare: &model.Cloudflare{}}
	pdns := model.Provider{PowerDNS: &model.PowerDNS{URL: "http://127.0.0.1:8081"}}
	tests := []struct {
		name    string
		child   *model.Zone
		signer  *backends.SignerDS // nil: the child's step left nothing
		wantDS  []string
		pending bool
		note    string
	}{
		{"active", &model.Zone{Name: "a." + zone, Provider: cf}, &backends.SignerDS{DS: []string{ds}, Status: "active"}, []string{ds}, false, ""},
		{"signed in this apply", &model.Zone{Name: "b." + zone, Provider: pdns}, &backends.SignerDS{Pending: true}, nil, true, ""},
		{"disabled", &model.Zone{Name: "c." + zone, Provider: cf}, &backends.SignerDS{Status: "disabled"},
			nil, false, "the DS of c.example.test. is not written: Cloudflare's DNSSEC for it is disabled, with no DS to publish; any DS here stays as it is"},
		{"not read", &model.Zone{Name: "d." + zone, Provider: pdns}, nil,
			nil, false, "the DS of d.example.test. is not written: its PowerDNS DNSSEC status was not read in this run (out of scope or not observed), so any DS here stays as it is"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := backends.Inputs{}
			if tt.signer != nil {
				in[graph.ZoneStepID(tt.child.Name)] = backends.Output{Signer: tt.signer}
			}
			step := graph.ZoneStep(&model.Zone{Tenant: "office1", Name: zone, TTL: 300, SignedChildren: []*model.Zone{tt.child}})
			got, pending, notes, err := dnsplan.WithChildDS(step, func(c *model.Zone) (dnsplan.ChildDS, error) {
				return dnsplan.SignerChildDS(in, c), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(step.Zone.RRsets) != 0 || len(step.Zone.Ignore) != 0 {
				t.Errorf("the step given was changed: %v, %v", step.Zone.RRsets, step.Zone.Ignore)
			}
			var gotDS []string
			for _, rs := range got.Zone.RRsets {
				if rs.Name == tt.child.Name && rs.Type == "DS" && rs.TTL == 300 && rs.Writer.Tenant == "office1" {
					gotDS = rs.Values
				}
			}
			if !slices.Equal(gotDS, tt.wantDS) {
				t.Errorf("got DS %q, want %q", gotDS, tt.wantDS)
			}
			ignored := got.Zone.Ignored(tt.child.Name, "DS") != nil
			if ignored != (tt.wantDS == nil) {
				t.Errorf("DS at the child ignored: %v, want %v", ignored, tt.wantDS == nil)
			}
			if (len(pending) == 1) != tt.pending {
				t.Errorf("got pending %v, want pending %v", pending, tt.pending)
			}
			if strings.Join(notes, "\n") != tt.note {
				t.Errorf("got notes %q, want %q", notes, tt.note)
			}
			if changes := dnsplan.PendingDSChanges(step, pending, nil); tt.pending && (len(changes) != 1 || changes[0].Key != dnsplan.Key(zone, tt.child.Name, "DS")) {
				t.Errorf("got pending changes %v, want one for the child's DS", changes)
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		step := graph.ZoneStep(&model.Zone{Name: zone, SignedChildren: []*model.Zone{{Name: "e." + zone, Provider: pdns}}})
		want := errors.New("keys unreadable")
		if _, _, _, err := dnsplan.WithChildDS(step, func(*model.Zone) (dnsplan.ChildDS, error) { return dnsplan.ChildDS{}, want }); !errors.Is(err, want) {
			t.Errorf("got %v, want %v", err, want)
		}
	})
}

// TestCheckCompletion: what a plan is completed with at apply time is
// sent only when every child is signed and no change needs a gate the
// run did not acknowledge.
func TestCheckCompletion(t *testing.T) {
	gated := []plan.Change{{Key: "dns/x", Action: plan.ActionUpdate, Gates: []plan.Gate{"GATE-DNS-OVERWRITE"}}}
	tests := []struct {
		name    string
		pending []*model.Zone
		changes []plan.Change
		acked   bool
		err     string
	}{
		{"ready", nil, nil, false, ""},
		{"still unsigned", []*model.Zone{{Name: "kid." + zone}}, nil, false, "kid.example.test. still has no active key"},
		{"gate not acknowledged", nil, gated, false, "needs GATE-DNS-OVERWRITE, which this plan did not show"},
		{"gate acknowledged", nil, gated, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := runstate.Start(backends.NewRun())
			run.Acked["GATE-DNS-OVERWRITE"] = tt.acked
			err := dnsplan.CheckCompletion(zone, tt.pending, tt.changes, run)
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Errorf("got %v, want %q", err, tt.err)
			}
		})
	}
}

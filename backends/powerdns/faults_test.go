package powerdns

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/dnsfaults"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
)

// TestFaults runs the DNS providers' fault table (backends/dnsfaults)
// against a real PowerDNS.
func TestFaults(t *testing.T) { dnsfaults.Run(t, faultProvider(pdnstest.Shared(t))) }

func faultProvider(srv *pdnstest.Server) dnsfaults.Provider {
	zoneRead := func(r *http.Request, zone string) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone)
	}
	answer := func(zone string) (string, string) {
		return `{"name":"` + zone + `","kind":"Native","rrsets":[`,
			`{"name":"h.` + zone + `","type":"A","ttl":300,"records":[{"content":"192.0.2.1","disabled":false}],"comments":[]},`
	}
	return dnsfaults.Provider{
		Name:    "PowerDNS provider " + dnsfaults.ProviderName,
		Secret:  srv.APIKey,
		NewZone: newFaultZone,
		IsWrite: func(r *http.Request) bool { return r.Method == http.MethodPatch },
		Class: func(err error) (backends.Class, bool) {
			var ae *APIError
			if errors.As(err, &ae) {
				return ae.Class, true
			}
			return "", false
		},
		Reads: []dnsfaults.Read{
			{Name: "observe", Match: zoneRead, Answer: answer, Do: func(ctx context.Context, z dnsfaults.Zone, api string) error {
				_, err := z.Plan(ctx, api, rr("www."+z.Name(), "A", 300, "192.0.2.10"))
				return err
			}},
			{Name: "export", Match: zoneRead, Answer: answer, Do: func(ctx context.Context, z dnsfaults.Zone, api string) error {
				fz := z.(*faultZone)
				_, err := fz.d.Export(ctx, fz.step(api).Zone, fz.run)
				return err
			}},
		},
		AnswerSays: func(api string) []string {
			return []string{"PowerDNS provider " + dnsfaults.ProviderName + " answered GET " + api + "/api/v1/servers/"}
		},
		MayHave:          "may have applied",
		EmptyWriteAnswer: true,
		WriteError: func(err error, sent bool) bool {
			// One not sent failed at the re-read before it.
			return err != nil && (!sent || strings.HasPrefix(err.Error(), "update zone "))
		},
		RefusedSays: func(status int) string { return fmt.Sprintf("error (HTTP %d)", status) },
		GoneSays:    "nothing was written to zone",
		Refusal:     dnsfaults.Answer{Status: http.StatusUnprocessableEntity, Body: `{"error":"RRset h0 IN A: Conflicts with pre-existing RRset"}`},
	}
}

// faultZones numbers the fault table's zones on the shared server.
var faultZones atomic.Int32

// faultZone is a zone on the shared PowerDNS as the fault table drives
// it, with a driver and run of its own.
type faultZone struct {
	srv  *pdnstest.Server
	name string
	d    *Driver
	run  *backends.Run
}

func newFaultZone(t *testing.T) dnsfaults.Zone {
	srv := pdnstest.Shared(t)
	z := &faultZone{srv: srv, name: fmt.Sprintf("faults%d.test.", faultZones.Add(1)), d: testDriver(), run: newRun(srv)}
	srv.CreateZone(t, z.name)
	t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+z.name, nil) })
	return z
}

func (z *faultZone) Name() string         { return z.name }
func (z *faultZone) API() string          { return z.srv.URL }
func (z *faultZone) SetMaxAnswer(n int64) { z.d.MaxAnswerBytes = n }
func (z *faultZone) Run() *backends.Run   { return z.run }

func (z *faultZone) Split() (first, parts int) {
	z.d.MaxBodyBytes = 600 // two rrsets with their comments a PATCH
	z.d.Attempts = 1
	return 2, 3
}

// step is the zone's step, its API reached at api.
func (z *faultZone) step(api string, rrsets ...*model.RRset) *graph.Step {
	step := zoneStep(z.srv, "office1", z.name, rrsets...)
	step.Zone.Provider.Name = dnsfaults.ProviderName
	step.Zone.Provider.PowerDNS.URL = api
	return step
}

func (z *faultZone) Plan(ctx context.Context, api string, rrsets ...*model.RRset) (*backends.StepPlan, error) {
	return z.d.Plan(ctx, z.step(api, rrsets...), z.run)
}

func (z *faultZone) Apply(ctx context.Context, sp *backends.StepPlan) (*backends.StepResult, error) {
	return z.d.Apply(ctx, sp, z.run)
}

func (z *faultZone) Served(t *testing.T, name, typ string) int { return len(z.srv.Query(t, name, typ)) }

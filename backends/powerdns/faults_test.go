package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
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
		Partial:     partialZoneAnswers(srv),
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

// partialZoneAnswers: a 200 that is not the whole zone must not make a
// foreign name look free. The zone holds an admin's A, with a comment,
// at the name the spec wants with other data; read in full that is an
// overwrite behind GATE-DNS-OVERWRITE. Read partially, site must either
// refuse to plan (the answer shows it is incomplete) or refuse to write
// (the re-read of the name before the PATCH finds the data): never
// replace it as a plain create.
func partialZoneAnswers(srv *pdnstest.Server) dnsfaults.PartialReads {
	admin := pdnstest.Comment{Account: "alice", Content: "mail relay, ask alice"}
	x := func(z dnsfaults.Zone) string { return "x." + z.Name() }
	incomplete := func(t *testing.T, _ dnsfaults.Zone, err error) {
		if !errors.Is(err, ErrIncomplete) {
			t.Errorf("plan: got %v, want the answer refused as incomplete", err)
		}
	}
	refused := func(t *testing.T, z dnsfaults.Zone, err error) {
		var ae *APIError
		if !errors.As(err, &ae) || ae.Class != backends.ClassConflict || !strings.Contains(err.Error(), x(z)) {
			t.Errorf("apply: got %v, want a conflict naming %s", err, x(z))
		}
	}
	edited := func(name string, edit func(z map[string]any), planned bool) dnsfaults.PartialRead {
		check := incomplete
		if planned {
			check = refused
		}
		return dnsfaults.PartialRead{Name: name, Planned: planned, Check: check,
			Cut: func(w http.ResponseWriter, r *http.Request, origin http.Handler) bool {
				return editZoneAnswer(w, r, origin, edit)
			}}
	}
	return dnsfaults.PartialReads{
		Setup: func(t *testing.T, z dnsfaults.Zone) []*model.RRset {
			srv.Replace(t, z.Name(), pdnstest.RRset{Name: z.Name(), Type: "NS", TTL: 3600, Records: []string{"ns1.example.net."}},
				pdnstest.RRset{Name: x(z), Type: "A", TTL: 300, Records: []string{"192.0.2.1"}, Comments: []pdnstest.Comment{admin}})
			return []*model.RRset{rr(x(z), "A", 300, "192.0.2.2")}
		},
		Intact: func(t *testing.T, z dnsfaults.Zone) {
			live := srv.Get(t, z.Name()).Find(x(z), "A")
			if live == nil || len(live.Records) != 1 || live.Records[0] != "192.0.2.1" || len(live.Comments) != 1 || live.Comments[0] != admin {
				t.Errorf("got %+v, want the admin's A and comment untouched", live)
			}
		},
		Cases: []dnsfaults.PartialRead{
			edited("empty rrsets list", func(z map[string]any) { z["rrsets"] = []any{} }, false),
			edited("SOA left out", keepRRsets(func(rs map[string]any) bool { return rs["type"] != "SOA" }), false),
			edited("SOA serial contradicts the zone's", func(z map[string]any) { z["serial"] = 7 }, false),
			edited("an rrset of another zone", func(z map[string]any) {
				z["rrsets"] = append(z["rrsets"].([]any), map[string]any{"name": "www.other.test.", "type": "A", "ttl": 300,
					"records": []any{map[string]any{"content": "192.0.2.7", "disabled": false}}, "comments": []any{}})
			}, false),
			edited("apex NS left out", keepRRsets(func(rs map[string]any) bool { return rs["type"] != "NS" }), false),
			edited("foreign rrsets left out, SOA and NS kept",
				keepRRsets(func(rs map[string]any) bool { return rs["type"] == "SOA" || rs["type"] == "NS" }), true),
		},
	}
}

// editZoneAnswer answers a whole-zone read (a GET of a zone without
// ?rrset_name) with PowerDNS's answer passed through edit, and reports
// whether r was one; the filtered re-read passes as it is.
func editZoneAnswer(w http.ResponseWriter, r *http.Request, origin http.Handler, edit func(map[string]any)) bool {
	if r.Method != http.MethodGet || !strings.Contains(r.URL.Path, "/zones/") || r.URL.Query().Has("rrset_name") {
		return false
	}
	rec := httptest.NewRecorder()
	origin.ServeHTTP(rec, r)
	var z map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &z) != nil {
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return true
	}
	edit(z)
	body, _ := json.Marshal(z)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
	return true
}

package cloudflare

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/backends/dnsfaults"
	"github.com/site-tools/site/compiler/model"
)

// TestFaults runs the DNS providers' fault table (backends/dnsfaults)
// against the fake Cloudflare.
func TestFaults(t *testing.T) { dnsfaults.Run(t, faultProvider()) }

func faultProvider() dnsfaults.Provider {
	record := func(zone string) string {
		return `{"id":"r1","type":"A","name":"www.` + strings.TrimSuffix(zone, ".") + `","content":"192.0.2.1","ttl":300},`
	}
	const start = `{"success":true,"errors":[],"messages":[],"result":[`
	answer := func(zone string) (string, string) { return start, record(zone) }
	plan := func(ctx context.Context, z dnsfaults.Zone, api string) error {
		_, err := z.Plan(ctx, api, rr("keys."+z.Name(), "A", 300, "203.0.113.10"))
		return err
	}
	return dnsfaults.Provider{
		Name:    "Cloudflare provider " + dnsfaults.ProviderName,
		Secret:  testToken,
		NewZone: func(t *testing.T) dnsfaults.Zone { return faultZone{newFixture(t)} },
		IsWrite: func(r *http.Request) bool { return r.Method != http.MethodGet },
		Reads: []dnsfaults.Read{
			{Name: "zone lookup", Answer: answer, Do: plan,
				Match: func(r *http.Request, _ string) bool { return strings.HasSuffix(r.URL.Path, "/zones") }},
			{Name: "record list", Answer: answer, Do: plan,
				Match: func(r *http.Request, _ string) bool { return strings.HasSuffix(r.URL.Path, "/dns_records") }},
			{Name: "batch answer", Answer: answer,
				Match: func(r *http.Request, _ string) bool { return strings.HasSuffix(r.URL.Path, "/dns_records/batch") },
				Do: func(ctx context.Context, z dnsfaults.Zone, api string) error {
					sp, err := z.Plan(ctx, api, rr("keys."+z.Name(), "A", 300, "203.0.113.10"))
					if err != nil {
						return err
					}
					_, err = z.Apply(ctx, sp)
					return err
				}},
		},
		AnswerSays: func(api string) []string {
			return []string{"Cloudflare provider " + dnsfaults.ProviderName + " answered ", api, "api_url"}
		},
		AnswerNotSays: []string{"Cloudflare refused the request", "changed nothing"},
		WriteError:    func(err error, _ bool) bool { return errors.As(err, new(*BatchError)) },
		MayHave:       "so it may have",
		LostSays:      []string{"site diff"},
		LostNotSays:   []string{"changed nothing", "refused"},
		RefusedSays:   func(status int) string { return fmt.Sprintf("was refused (HTTP %d) and changed nothing", status) },
		GoneSays:      "failed before Cloudflare had all of it, so it changed nothing",
		Partial:       partialListings(),
		Refusal: dnsfaults.Answer{Status: http.StatusBadRequest,
			Body: `{"success":false,"errors":[{"code":1004,"message":"DNS Validation Error"}],"messages":[],"result":null}`},
	}
}

// faultZone is a fixture's zone as the fault table drives it.
type faultZone struct{ f *fixture }

func (z faultZone) Name() string         { return zoneName }
func (z faultZone) API() string          { return z.f.fake.URL }
func (z faultZone) SetMaxAnswer(n int64) { z.f.drv.MaxAnswerBytes = n }
func (z faultZone) Run() *backends.Run   { return z.f.run }
func (z faultZone) Split() (first, parts int) {
	z.f.drv.ChunkSize = 2
	return 2, 3
}

func (z faultZone) Plan(ctx context.Context, api string, rrsets ...*model.RRset) (*backends.StepPlan, error) {
	step := z.f.step(rrsets...)
	step.Zone.Provider.Name = dnsfaults.ProviderName
	step.Zone.Provider.Cloudflare.APIURL = api
	return z.f.drv.Plan(ctx, step, z.f.run)
}

func (z faultZone) Apply(ctx context.Context, sp *backends.StepPlan) (*backends.StepResult, error) {
	return z.f.drv.Apply(ctx, sp, z.f.run)
}

func (z faultZone) Served(t *testing.T, name, typ string) int {
	n := 0
	for _, r := range z.f.fake.Records(z.f.zoneID) {
		if r.Name == strings.TrimSuffix(name, ".") && r.Type == typ {
			n++
		}
	}
	return n
}

// partialListings: a zone listed over several pages whose later page
// fails was not observed; Plan must fail rather than plan deletes of our
// records it did not see.
func partialListings() dnsfaults.PartialReads {
	page3 := func(status int, body string) dnsfaults.PartialRead {
		return dnsfaults.PartialRead{
			Cut: func(w http.ResponseWriter, r *http.Request, _ http.Handler) bool {
				if !strings.HasSuffix(r.URL.Path, "/dns_records") || r.URL.Query().Get("page") != "3" {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = w.Write([]byte(body))
				return true
			},
			Check: func(t *testing.T, _ dnsfaults.Zone, err error) {
				if !strings.Contains(err.Error(), "page 3") {
					t.Errorf("error %q does not name the page that failed", err)
				}
			},
		}
	}
	cases := []dnsfaults.PartialRead{
		page3(http.StatusInternalServerError, `{"success":false,"errors":[{"code":10001,"message":"internal"}],"messages":[],"result":null}`),
		page3(http.StatusForbidden, `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"messages":[],"result":null}`),
		page3(http.StatusOK, `{"success":true,"result":[{"id":"x"`),
		page3(http.StatusOK, `{"success":true,"errors":[],"messages":[],"result":[],"result_info":{"page":3,"per_page":2,"count":0,"total_count":6,"total_pages":3}}`),
		page3(http.StatusOK, `{"success":true,"errors":[],"messages":[],"result":[]}`),
	}
	for i, name := range []string{"page 3 answers 500", "page 3 answers 403", "page 3 answers truncated JSON",
		"page 3 answers an empty page though 3 of 3 are announced", "page 3 answers a success without result_info"} {
		cases[i].Name = name
	}
	return dnsfaults.PartialReads{
		// Six of ours over three pages of two; the spec keeps five.
		Setup: func(t *testing.T, z dnsfaults.Zone) []*model.RRset {
			f := z.(faultZone).f
			var want []*model.RRset
			for i := range 6 {
				name := fmt.Sprintf("h%d.%s", i, zoneName)
				f.add(t, cftest.Record{Name: strings.TrimSuffix(name, "."), Type: "A", Content: "192.0.2.1", TTL: 300, Comment: Marker("sjc")})
				if i < 5 {
					want = append(want, rr(name, "A", 300, "192.0.2.1"))
				}
			}
			f.drv.PerPage = 2
			f.drv.Retries = 1
			return want
		},
		Intact: func(t *testing.T, z dnsfaults.Zone) {
			if got := len(z.(faultZone).f.fake.Records(z.(faultZone).f.zoneID)); got != 6 {
				t.Errorf("the fake holds %d records, want the 6 it held", got)
			}
		},
		Cases: cases,
	}
}

package powerdns

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/model"
)

// endlessZone answers with a zone whose rrsets do not end: the server
// writes until the client stops reading, or streamCap should it never
// stop. It counts the requests it answered and the bytes it wrote.
type endlessZone struct {
	requests, written atomic.Int64
}

const streamCap = 64 << 20

func (e *endlessZone) serve(w http.ResponseWriter, zone string) {
	e.requests.Add(1)
	w.Header().Set("Content-Type", "application/json")
	rrset := []byte(`{"name":"h.` + zone + `","type":"A","ttl":300,"records":[{"content":"192.0.2.1","disabled":false}],"comments":[]},`)
	n, _ := w.Write([]byte(`{"name":"` + zone + `","kind":"Native","rrsets":[`))
	e.written.Add(int64(n))
	for e.written.Load() < streamCap {
		n, err := w.Write(rrset)
		e.written.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// TestHugeAnswerIsCut: a proxy (or a url that names something else than
// the API) that answers a zone's GET without end is read no further
// than the driver's bound. The read fails once, not retried, with an
// error naming the provider's url, the bound and what to check, never
// the key; observation and export alike.
func TestHugeAnswerIsCut(t *testing.T) {
	srv := pdnstest.Shared(t)
	const zone = "huge-answer.test."
	srv.CreateZone(t, zone)
	tests := []struct {
		name string
		read func(d *Driver, z *model.Zone, run *backends.Run) error
	}{
		{"observe", func(d *Driver, z *model.Zone, run *backends.Run) error {
			step := zoneStep(srv, "office1", zone, rr("www."+zone, "A", 300, "192.0.2.10"))
			step.Zone = z
			_, err := d.Plan(context.Background(), step, run)
			return err
		}},
		{"export", func(d *Driver, z *model.Zone, run *backends.Run) error {
			_, err := d.Export(context.Background(), z, run)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endless := &endlessZone{}
			target, _ := url.Parse(srv.URL)
			proxy := httputil.NewSingleHostReverseProxy(target)
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/zones/"+zone) {
					endless.serve(w, zone)
					return
				}
				proxy.ServeHTTP(w, r)
			}))
			defer front.Close()
			z := zoneStep(srv, "office1", zone).Zone
			z.Provider.Name, z.Provider.PowerDNS.URL = "pdns", front.URL
			d := testDriver()
			d.MaxAnswerBytes = 1 << 20

			err := tt.read(d, z, newRun(srv))
			front.CloseClientConnections()
			var tooLarge *backends.AnswerTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("got %v, want the answer cut at the bound", err)
			}
			for _, want := range []string{"PowerDNS provider pdns answered GET " + front.URL + "/api/v1/servers/", "more than 1 MiB", "site.cue", "proxy"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), srv.APIKey) {
				t.Errorf("error %q holds the API key", err)
			}
			if n := endless.requests.Load(); n != 1 {
				t.Errorf("the zone was asked %d times, want once: an answer past the bound comes again", n)
			}
			if n := endless.written.Load(); n >= streamCap {
				t.Errorf("site took all %d MiB the server wrote, want it to stop at the bound", n>>20)
			}
		})
	}
}

// TestRawAnswerIsBoundOnlyByTheClient: the requests go-powerdns cannot
// send (raw.go) read their answers whole up to the client's bound, like
// every other: an answer cut short at a bound of their own would read
// as JSON that is not what was expected. A server's config list with
// its launch setting last, 9 MiB of it, still names the backend.
func TestRawAnswerIsBoundOnlyByTheClient(t *testing.T) {
	var settings strings.Builder
	settings.WriteString("[")
	for settings.Len() < 9<<20 {
		settings.WriteString(`{"type":"ConfigSetting","name":"padding","value":"` + strings.Repeat("x", 1000) + `"},`)
	}
	settings.WriteString(`{"type":"ConfigSetting","name":"launch","value":"gsqlite3"}]`)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(settings.String()))
	}))
	defer server.Close()
	z := &model.Zone{Name: "raw.test.", Provider: model.Provider{Name: "pdns",
		PowerDNS: &model.PowerDNS{URL: server.URL, Server: "localhost", APIKey: model.Credential{Env: keyEnv}}}}
	run := backends.NewRun()
	run.Getenv = func(k string) string { return map[string]string{keyEnv: "k"}[k] }
	d := testDriver()
	c, err := d.zoneClient(z, run)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.launch(context.Background(), c); got != "gsqlite3" {
		t.Errorf("launch = %q, want %q from the last setting of a 9 MiB answer", got, "gsqlite3")
	}
}

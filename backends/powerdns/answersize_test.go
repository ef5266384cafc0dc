package powerdns

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/compiler/model"
)

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
	run := runstate.Start(backends.NewRun())
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

package pdnstest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestServerServesWhatTheAPIWrote(t *testing.T) {
	s := Shared(t)
	s.CreateZone(t, "pdnstest.test.", RRset{Name: "www.pdnstest.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.7"}})
	if got := s.Query(t, "www.pdnstest.test.", "A"); len(got) != 1 || got[0] != "300 192.0.2.7" {
		t.Errorf("got %q, want %q", got, []string{"300 192.0.2.7"})
	}
	z := s.Get(t, "pdnstest.test.")
	if r := z.Find("www.pdnstest.test.", "A"); r == nil || r.Records[0] != "192.0.2.7" {
		t.Errorf("got %+v, want www A 192.0.2.7", r)
	}
}

func TestProxyCountsPerZoneAndFails(t *testing.T) {
	s := Shared(t)
	s.CreateZone(t, "count.test.")
	get := func() int {
		req, _ := http.NewRequest("GET", s.BaseURL()+"/zones/count.test.", nil)
		req.Header.Set("X-API-Key", s.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(); got != 200 {
		t.Fatalf("got status %d, want 200", got)
	}
	s.FailWhen(t, func(r *http.Request) (int, string, bool) { return 503, `{"error":"down"}`, r.Method == "GET" })
	if got := get(); got != 503 {
		t.Errorf("got status %d, want 503 while failing", got)
	}
	if got := s.Requests("count.test.").GET; got != 2 {
		t.Errorf("got %d GETs, want 2", got)
	}
	if got := s.Requests("other.test.").GET; got != 0 {
		t.Errorf("got %d GETs for another zone, want 0", got)
	}
}

func TestLMDBServerRunsTheLMDBBackend(t *testing.T) {
	s := New(t, Options{Backend: LMDB})
	st, out, err := s.Do(context.Background(), "GET", "/config", nil)
	if err != nil || st != http.StatusOK {
		t.Fatalf("GET config: %d %v %s", st, err, out)
	}
	var settings []struct{ Name, Value string }
	if err := json.Unmarshal(out, &settings); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(settings, func(s struct{ Name, Value string }) bool { return s.Name == "launch" })
	if i < 0 || settings[i].Value != "lmdb" {
		t.Fatalf("got launch %+v, want lmdb", settings)
	}
	s.CreateZone(t, "lmdb.test.", RRset{Name: "www.lmdb.test.", Type: "A", TTL: 300, Records: []string{"192.0.2.8"}})
	if got := s.Query(t, "www.lmdb.test.", "A"); len(got) != 1 || got[0] != "300 192.0.2.8" {
		t.Errorf("got %q, want %q", got, []string{"300 192.0.2.8"})
	}
}

// TestHiddenRecordIsServedNotListed: a record HideRecord puts into the
// second backend is answered over DNS while the API does not list it.
func TestHiddenRecordIsServedNotListed(t *testing.T) {
	s := New(t, Options{Second: true})
	s.CreateZone(t, "hide.test.")
	s.HideRecord(t, "hide.test.", "secret.hide.test.", "A", 300, "192.0.2.66")
	if got := s.Query(t, "secret.hide.test.", "A"); !slices.Equal(got, []string{"300 192.0.2.66"}) {
		t.Errorf("DNS: got %q, want the hidden record served", got)
	}
	if r := s.Get(t, "hide.test.").Find("secret.hide.test.", "A"); r != nil {
		t.Errorf("API: got %+v, want the hidden record not listed", r)
	}
}

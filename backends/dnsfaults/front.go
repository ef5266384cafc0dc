package dnsfaults

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
)

// front puts a proxy in front of the test server whose API is at api,
// as a corporate proxy or a provider's edge stands in front of the API:
// every request goes to handle, with the origin to forward it to. It
// returns the API's URL through the proxy, and the proxy.
func front(t *testing.T, api string, handle func(w http.ResponseWriter, r *http.Request, origin http.Handler)) (string, *httptest.Server) {
	t.Helper()
	target, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	origin := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(w, r, origin) }))
	t.Cleanup(srv.Close)
	return srv.URL + target.Path, srv
}

// acted forwards r to origin and returns its answer, unsent: the
// server has acted on the request, and the proxy decides what the
// client hears of it.
func acted(r *http.Request, origin http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	origin.ServeHTTP(rec, r)
	return rec
}

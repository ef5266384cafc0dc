package main

import (
	"net/http/httptest"
	"net/url"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// faultProxy is a Toxiproxy server embedded in the test, with one TCP
// proxy between site and an HTTP API. Its toxics break the connection
// itself (resets, stalls, slow and cut bodies) where the pdnstest
// proxy behind it can only answer whole requests wrongly.
type faultProxy struct {
	client *toxiclient.Client
	proxy  *toxiclient.Proxy
	// URL is the API's base URL through the proxy; give it to site.
	URL string
}

// newFaultProxy starts Toxiproxy's API on a test HTTP server (no fixed
// port) and a proxy to upstream (an http:// base URL) on a free
// loopback port. Both stop when the test ends.
func newFaultProxy(t *testing.T, upstream string) *faultProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	// The toxics log through zerolog's global logger, a line per
	// interrupted connection: keep them out of the test's output.
	level := zerolog.GlobalLevel()
	zerolog.SetGlobalLevel(zerolog.Disabled)
	t.Cleanup(func() { zerolog.SetGlobalLevel(level) })
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	hs := httptest.NewServer(api.Routes())
	t.Cleanup(hs.Close)
	c := toxiclient.NewClient(hs.URL)
	p, err := c.CreateProxy("api", "127.0.0.1:0", u.Host)
	if err != nil {
		t.Fatalf("create the toxiproxy proxy to %s: %v", u.Host, err)
	}
	t.Cleanup(func() { p.Delete() })
	return &faultProxy{client: c, proxy: p, URL: "http://" + p.Listen}
}

// add adds one toxic; stream is "downstream" (answers) or "upstream"
// (requests); toxicity is the share of connections it applies to.
func (f *faultProxy) add(t *testing.T, kind, stream string, toxicity float32, attrs toxiclient.Attributes) {
	t.Helper()
	if _, err := f.proxy.AddToxic("", kind, stream, toxicity, attrs); err != nil {
		t.Fatalf("add toxic %s %s %v: %v", kind, stream, attrs, err)
	}
}

// clear removes every toxic. Connections opened under them are closed
// by Toxiproxy, so the next run starts on a clean line.
func (f *faultProxy) clear(t *testing.T) {
	t.Helper()
	if err := f.client.ResetState(); err != nil {
		t.Fatalf("reset toxiproxy: %v", err)
	}
}

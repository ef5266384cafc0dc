package cloudflare

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
)

// TestWrongAPIURLSaysSo: an api_url Cloudflare (here the fake) has no
// route for answers the first request, the zone lookup, with 404 and
// code 7003. Nothing was observed yet, so it is not "the zone changed
// since it was observed": the error names the URL as wrong, and is no
// conflict to re-observe.
func TestWrongAPIURLSaysSo(t *testing.T) {
	f := newFixture(t)
	u, err := url.Parse(f.fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	wrong := u.Scheme + "://" + u.Host + "/client/v9"
	step := f.step(rr("www."+zoneName, "A", 300, "192.0.2.1"))
	step.Zone.Provider.Cloudflare.APIURL = wrong
	_, err = f.drv.Plan(context.Background(), step, f.run)
	if err == nil {
		t.Fatal("Plan succeeded against an API URL with no such path")
	}
	msg := err.Error()
	for _, want := range []string{"at " + wrong + ":", "(7003)", "so that API URL is wrong", "api_url"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "changed since it was observed") {
		t.Errorf("error %q blames a change since an observation that never happened", msg)
	}
	if c := Classify(err); c == backends.ClassConflict || c == backends.ClassTransient {
		t.Errorf("Classify = %v, want neither conflict nor transient: no retry or re-observation mends a wrong URL", c)
	}
}

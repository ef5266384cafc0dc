package dnsfaults

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/site-tools/site/backends"
)

// streamCap is where an answer without end stops should site never
// stop reading it.
const streamCap = 64 << 20

// answerSize: a proxy (or an API URL that names something else than
// the API) that answers one request without end is read no further
// than the driver's bound. The request fails once, not retried, with an
// error naming the provider, the URL asked, the bound and what to
// check, never the secret. (Was TestHugeAnswerIsCut in cloudflare and
// in powerdns.)
func answerSize(t *testing.T, p Provider) {
	for _, read := range p.Reads {
		t.Run(read.Name, func(t *testing.T) {
			z := p.NewZone(t)
			z.SetMaxAnswer(1 << 20)
			var asked, written atomic.Int64
			api, srv := front(t, z.API(), func(w http.ResponseWriter, r *http.Request, origin http.Handler) {
				if !read.Match(r, z.Name()) {
					origin.ServeHTTP(w, r)
					return
				}
				asked.Add(1)
				start, item := read.Answer(z.Name())
				w.Header().Set("Content-Type", "application/json")
				n, _ := w.Write([]byte(start))
				written.Add(int64(n))
				for written.Load() < streamCap {
					n, err := w.Write([]byte(item))
					written.Add(int64(n))
					if err != nil {
						return
					}
				}
			})
			err := read.Do(context.Background(), z, api)
			srv.CloseClientConnections()
			var tooLarge *backends.AnswerTooLargeError
			if !errors.As(err, &tooLarge) {
				t.Fatalf("got %v, want the answer cut at the bound", err)
			}
			for _, want := range append(p.AnswerSays(api), "more than 1 MiB", "site.cue", "proxy") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			for _, wrong := range p.AnswerNotSays {
				if strings.Contains(err.Error(), wrong) {
					t.Errorf("error %q says %q: the server answered, and a write may have been applied", err, wrong)
				}
			}
			if strings.Contains(err.Error(), p.Secret) {
				t.Errorf("error %q holds the secret", err)
			}
			if n := asked.Load(); n != 1 {
				t.Errorf("the request was sent %d times, want once: an answer past the bound comes again", n)
			}
			if n := written.Load(); n >= streamCap {
				t.Errorf("site took all %d MiB the server wrote, want it to stop at the bound", n>>20)
			}
		})
	}
}

package cftest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Cloudflare's API allows a token 1,200 requests per five minutes and
// then blocks every call for five minutes with HTTP 429 (its API limits
// page). Every REST answer carries the IETF draft headers, Ratelimit:
// "default";r=50;t=30 (requests left, seconds until the window resets)
// and Ratelimit-Policy: "burst";q=100;w=60 (the quota and its window in
// seconds); a 429 also carries retry-after, in seconds rounded up.

// CodeRateLimited is the error code of a 429's body. Cloudflare does not
// document the REST API's 429 body; its published schema only says that
// error codes are at least 1000 (the 971 seen by wrangler is not in it),
// and 10429 is what clients of the API have been seen to match.
const CodeRateLimited = 10429

// quota is a budget the fake enforces (SetLimit): fixed windows from the
// first request, then a block of one window once one is overdrawn.
type quota struct {
	requests int
	window   time.Duration
	start    time.Time // of the current window
	used     int
	blocked  time.Time // every request is refused until then
}

// SetLimit makes the fake allow requests per window (whole seconds) and
// refuse every request for one window once a client sends more, as
// Cloudflare does with 1,200 per five minutes; 0 requests lifts it.
func (s *Server) SetLimit(requests int, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = nil
	if requests > 0 {
		s.quota = &quota{requests: requests, window: window.Round(time.Second)}
	}
}

// limited (s.mu held) counts the request against the quota and sets the
// headers; it answers the request with 429, and returns true, past it.
func (s *Server) limited(w http.ResponseWriter) bool {
	q := s.quota
	if q == nil {
		return false
	}
	now := time.Now()
	if now.Before(q.blocked) {
		s.refuse(w, seconds(q.blocked.Sub(now)), q)
		return true
	}
	if q.start.IsZero() || now.Sub(q.start) >= q.window {
		q.start, q.used = now, 0
	}
	q.used++
	if q.used > q.requests {
		q.blocked = now.Add(q.window)
		s.refuse(w, seconds(q.window), q)
		return true
	}
	w.Header().Set("Ratelimit", fmt.Sprintf(`"default";r=%d;t=%d`, q.requests-q.used, seconds(q.start.Add(q.window).Sub(now))))
	w.Header().Set("Ratelimit-Policy", fmt.Sprintf(`"default";q=%d;w=%d`, q.requests, seconds(q.window)))
	return false
}

// refuse answers 429 with retry-after seconds; q, when set, names the
// policy.
func (s *Server) refuse(w http.ResponseWriter, retryAfter int, q *quota) {
	s.counts[EpRateLimited]++
	w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
	w.Header().Set("Ratelimit", `"default";r=0;t=`+strconv.Itoa(retryAfter))
	policy := `"default";q=1200;w=300`
	if q != nil {
		policy = fmt.Sprintf(`"default";q=%d;w=%d`, q.requests, seconds(q.window))
	}
	w.Header().Set("Ratelimit-Policy", policy)
	writeError(w, &apiError{http.StatusTooManyRequests, CodeRateLimited, "Rate limited. Please wait and consider throttling your request speed"})
}

// seconds is d in whole seconds, rounded up.
func seconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

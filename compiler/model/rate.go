package model

import (
	"fmt"
	"time"
)

// Rate is a provider's request budget: at most Requests requests in any
// window of Per, all of one run's steps together.
type Rate struct {
	Requests int
	Per      time.Duration
}

// CloudflareRate is Cloudflare's documented limit, 1,200 requests per
// five minutes per token (its API limits page); past it every call is
// refused for five minutes.
var CloudflareRate = Rate{Requests: 1200, Per: 5 * time.Minute}

func (r Rate) String() string {
	return fmt.Sprintf("%d requests per %s", r.Requests, r.Per)
}

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

func (r Rate) String() string {
	return fmt.Sprintf("%d requests per %s", r.Requests, r.Per)
}

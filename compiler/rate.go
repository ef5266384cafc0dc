package compiler

import (
	"time"

	"github.com/site-tools/site/compiler/model"
)

// rawRate is a provider's rate as site.cue declares it.
type rawRate struct {
	Requests int    `json:"requests"`
	Per      string `json:"per"`
}

// readRate is the request budget of provider p: site.cue's rate, else
// the default its kind's rules declare (the API's documented limit),
// else none.
func readRate(r *rawRate, p model.Provider, path []string, errorf func([]string, string, ...any)) *model.Rate {
	if r == nil {
		if k := ruleSet()[p.Kind()]; k != nil && k.Rate != nil {
			def := *k.Rate
			return &def
		}
		return nil
	}
	per, err := time.ParseDuration(r.Per)
	switch {
	case err != nil:
		errorf(at(path, "per"), "per %q is not a duration: write it as Go does, e.g. \"10s\" or \"5m\"", r.Per)
		return nil
	case per < time.Millisecond:
		errorf(at(path, "per"), "per %q is shorter than a millisecond: a budget window is seconds or minutes, e.g. \"5m\"", r.Per)
		return nil
	}
	return &model.Rate{Requests: r.Requests, Per: per}
}

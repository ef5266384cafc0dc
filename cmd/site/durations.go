package main

import (
	"errors"
	"time"

	"github.com/spf13/pflag"
)

// durationFlag is a duration flag that refuses, as it is parsed, the
// values that mean nothing for it: a negative duration always, and 0
// unless zero says what 0 means (--lock-timeout 0 fails at once). Left
// to a plain duration flag, --eval-timeout -1s was taken silently and
// the default used instead.
type durationFlag struct {
	d *time.Duration
	// want says what to write instead, e.g. "a positive duration such
	// as 2m".
	want string
	// zero is true when 0 has a meaning of its own.
	zero bool
}

// durationVar defines a durationFlag on fs: name's value must be
// positive, or with zero also 0; want says what to write instead.
func durationVar(fs *pflag.FlagSet, d *time.Duration, name string, value time.Duration, zero bool, want, usage string) {
	*d = value
	fs.Var(&durationFlag{d: d, want: want, zero: zero}, name, usage)
}

func (f *durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration: want " + f.want)
	}
	switch {
	case d < 0:
		return errors.New("a negative duration means nothing here: want " + f.want)
	case d == 0 && !f.zero:
		return errors.New("0 means nothing here: want " + f.want)
	}
	*f.d = d
	return nil
}

func (f *durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

// Type is "duration", as for a plain duration flag, so that --help reads
// the same and pflag's GetDuration reads it back.
func (f *durationFlag) Type() string { return "duration" }

package main

import (
	"strings"
	"testing"
)

// quietSpec writes a tenant with nothing to converge (no zone, no VM),
// and its site.cue, and returns the tenant file: apply and diff of it
// need no server.
func quietSpec(t *testing.T) string {
	t.Helper()
	site := siteSrc(pdnsProvider("pdns", "http://127.0.0.1:1", "PDNS_API_KEY", "off"),
		grant{tenant: "quiet", domains: []string{"quiet.example.test"}, providers: []string{"pdns"}})
	return writeSpec(t, site, "quiet.cue", "package tenants\n\ntenants: quiet: domain: \"quiet.example.test\"\n")
}

// TestFlagValuesWithoutMeaning: a flag value that means nothing (a
// negative wait, a budget of 0) is refused at once, exit 1, with what
// to write instead, rather than taken silently; where 0 has a meaning
// (--lock-timeout 0 fails at once) it is kept.
func TestFlagValuesWithoutMeaning(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	file := quietSpec(t)
	for _, tc := range []struct {
		args []string
		code int
		// stderr holds want, when the code is not 0.
		want string
	}{
		{[]string{"apply", "--lock-timeout", "-5s"}, exitError, `invalid argument "-5s" for "--lock-timeout" flag: a negative duration means nothing here: want 0 to fail at once, or how long to wait, such as 5m (see site apply --help)`},
		{[]string{"apply", "--lock-timeout", "0"}, exitOK, ""},
		{[]string{"apply", "--lock-timeout", "5m"}, exitOK, ""},
		{[]string{"apply", "--lease-timeout", "0"}, exitError, `invalid argument "0" for "--lease-timeout" flag: 0 means nothing here: want a positive duration such as 2m`},
		{[]string{"apply", "--lease-timeout", "-1m"}, exitError, `"--lease-timeout" flag: a negative duration means nothing here: want a positive duration such as 2m`},
		{[]string{"vet", "--eval-timeout", "0"}, exitError, `invalid argument "0" for "--eval-timeout" flag: 0 means nothing here: want a positive duration such as 2m (the budget cannot be turned off) (see site vet --help)`},
		{[]string{"vet", "--eval-timeout", "-1s"}, exitError, `invalid argument "-1s" for "--eval-timeout" flag: a negative duration means nothing here: want a positive duration such as 2m`},
		{[]string{"vet", "--eval-timeout", "soon"}, exitError, `invalid argument "soon" for "--eval-timeout" flag: not a duration: want a positive duration such as 2m`},
		{[]string{"vet", "--eval-timeout", "1m"}, exitOK, ""},
		{[]string{"diff", "--eval-timeout", "0s"}, exitError, `"--eval-timeout" flag: 0 means nothing here`},
		{[]string{"apply", "--eval-timeout", "-1s"}, exitError, `"--eval-timeout" flag: a negative duration means nothing here`},
		{[]string{"unlock", "quiet", "--eval-timeout", "0"}, exitError, `"--eval-timeout" flag: 0 means nothing here`},
		{[]string{"vet", "--eval-memory", "0GiB"}, exitError, `invalid argument "0GiB" for "--eval-memory" flag: size "0GiB": 0 means nothing here: want a positive size such as 2GiB (the budget cannot be turned off)`},
		{[]string{"vet", "--eval-memory", "0"}, exitError, `size "0": 0 means nothing here: want a positive size such as 2GiB`},
		{[]string{"vet", "--eval-memory", "-1GiB"}, exitError, `size "-1GiB": write a number and a unit`},
		{[]string{"vet", "--eval-memory", "2GiB"}, exitOK, ""},
		{[]string{"diff", "--parallelism", "0"}, exitError, "--parallelism 0: use 1 or more"},
		{[]string{"apply", "--parallelism", "-1"}, exitError, "--parallelism -1: use 1 or more"},
		{[]string{"diff", "--delete-threshold", "-1"}, exitError, "--delete-threshold -1: use a percentage from 0 to 100"},
		{[]string{"apply", "--delete-threshold", "101"}, exitError, "--delete-threshold 101: use a percentage from 0 to 100"},
		{[]string{"apply", "--delete-threshold", "100", "--parallelism", "1"}, exitOK, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			checkRefusal(t, append(tc.args, file), tc.code, tc.want)
		})
	}
}

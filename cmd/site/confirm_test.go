package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
)

// useTerminal makes site's runs in t read stdin from in, as if a
// terminal were attached when tty is true.
func useTerminal(t *testing.T, tty bool, in string) {
	oldIn, oldTTY := stdin, stdinIsTerminal
	stdin, stdinIsTerminal = strings.NewReader(in), func() bool { return tty }
	t.Cleanup(func() { stdin, stdinIsTerminal = oldIn, oldTTY })
}

// TestApplyAsksBeforeDeleting: on a terminal, apply without --ack shows
// the plan and asks before a deletion; only "yes" goes on, anything
// else exits 1 having changed nothing. --yes, an --ack, or stdin that is
// not a terminal are not asked (the gates alone decide, as before).
func TestApplyAsksBeforeDeleting(t *testing.T) {
	srv := pdnsEnv(t)
	const question = "Type yes: "
	for i, tc := range []struct {
		name    string
		tty     bool
		answer  string
		flags   []string
		asked   bool
		applied bool
	}{
		{"yes", true, "yes\n", nil, true, true},
		{"no", true, "no\n", nil, true, false},
		{"y is not yes", true, "y\n", nil, true, false},
		{"no answer at all", true, "", nil, true, false},
		{"--yes", true, "", []string{"--yes"}, false, true},
		{"an --ack answers", true, "", []string{"--ack", "GATE-DNS-OVERWRITE"}, false, true},
		{"not a terminal", false, "", nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zone := fmt.Sprintf("ask%d.example.test", i)
			// Two of the three rrsets stay: one delete is under the
			// small-zone GATE-DNS-DELETE-MANY, so only the question stops it.
			owned := func(label string) pdnstest.RRset {
				return pdnstest.RRset{Name: label + "." + zone + ".", Type: "A", TTL: 300, Records: []string{"192.0.2.9"},
					Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}}
			}
			srv.CreateZone(t, zone+".", owned("old"), owned("k1"), owned("k2"))
			file := tenantFile(t, srv, zone, `www: A: ["192.0.2.80"], k1: A: ["192.0.2.9"], k2: A: ["192.0.2.9"]`)
			useTerminal(t, tc.tty, tc.answer)
			code, stdout, stderr := siteRun(t, srv, append([]string{"apply", file}, tc.flags...)...)
			if asked := strings.Contains(stderr, question); asked != tc.asked {
				t.Errorf("asked: %v, want %v\nstderr:\n%s", asked, tc.asked, stderr)
			}
			if tc.asked && !strings.Contains(stderr, "1 change in the plan above can cause an outage, delete or replace data:\n  delete dns/"+zone+"./old."+zone+"./A [live]\n") {
				t.Errorf("the question does not list the deletion:\n%s", stderr)
			}
			wantCode := exitOK
			if !tc.applied {
				wantCode = exitError
				if !strings.Contains(stderr, "site: apply cancelled: the answer was not \"yes\", so nothing was changed") {
					t.Errorf("stderr does not say apply was cancelled:\n%s", stderr)
				}
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, "# dns/"+zone+". (tenant office1)\n  - old A") {
				t.Errorf("the plan was not shown before the question:\n%s", stdout)
			}
			if got := len(srv.Query(t, "old."+zone+".", "A")) == 0; got != tc.applied {
				t.Errorf("old deleted: %v, want %v", got, tc.applied)
			}
		})
	}
}

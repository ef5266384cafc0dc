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

// TestApplyAsksBeforeDeleting: on a terminal, apply shows the plan and
// asks before a deletion; only "yes" goes on, anything else exits 1
// having changed nothing. --yes is not asked; nor is an --ack of a gate
// the deletion does not need an answer (issue 27 finding 6: it was).
// Stdin that is not a terminal is not asked either, and without --yes
// exits 3 having changed nothing (it deleted).
func TestApplyAsksBeforeDeleting(t *testing.T) {
	srv := pdnsEnv(t)
	const question = "Type yes: "
	for i, tc := range []struct {
		name   string
		tty    bool
		answer string
		flags  []string
		asked  bool
		code   int
	}{
		{"yes", true, "yes\n", nil, true, exitOK},
		{"no", true, "no\n", nil, true, exitError},
		{"y is not yes", true, "y\n", nil, true, exitError},
		{"no answer at all", true, "", nil, true, exitError},
		{"--yes", true, "", []string{"--yes"}, false, exitOK},
		{"another gate's --ack does not answer", true, "", []string{"--ack", "GATE-DNS-OVERWRITE"}, true, exitError},
		{"another gate's --ack, then yes", true, "yes\n", []string{"--ack", "GATE-DNS-OVERWRITE"}, true, exitOK},
		{"not a terminal", false, "", nil, false, exitGated},
		{"not a terminal, another gate's --ack", false, "", []string{"--ack", "GATE-DNS-OVERWRITE"}, false, exitGated},
		{"not a terminal, --yes", false, "", []string{"--yes"}, false, exitOK},
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
			applied := tc.code == exitOK
			if tc.code == exitError && !strings.Contains(stderr, "site: apply cancelled: the answer was not \"yes\", so nothing was changed") {
				t.Errorf("stderr does not say apply was cancelled:\n%s", stderr)
			}
			if tc.code == exitGated && !strings.Contains(stderr, "stdin is not a terminal, so site cannot ask: nothing was changed:\n  delete dns/"+zone+"./old."+zone+"./A [live]\n") {
				t.Errorf("stderr does not name the deletion that needs --yes:\n%s", stderr)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, "# dns/"+zone+". (tenant office1)\n  - old A") {
				t.Errorf("the plan was not shown before the question:\n%s", stdout)
			}
			if got := len(srv.Query(t, "old."+zone+".", "A")) == 0; got != applied {
				t.Errorf("old deleted: %v, want %v", got, applied)
			}
			if got := len(srv.Query(t, "www."+zone+".", "A")) > 0; got != applied {
				t.Errorf("www created: %v, want %v", got, applied)
			}
		})
	}
}

// TestAckAnswersOnlyItsOwnChanges: on a terminal, --ack GATE-DNS-OVERWRITE
// answers the question for the overwrite it acknowledges, so a plan
// whose only destructive change is that overwrite is not asked about;
// beside an ungated delete, the question lists the delete alone and
// says the overwrite was answered, and "no" leaves both undone.
func TestAckAnswersOnlyItsOwnChanges(t *testing.T) {
	srv := pdnsEnv(t)
	for i, tc := range []struct {
		name   string
		delete bool // the live zone holds an owned rrset the spec dropped
		answer string
		asked  bool
		code   int
	}{
		{"the overwrite alone is answered by its ack", false, "", false, exitOK},
		{"a delete beside it is asked about", true, "no\n", true, exitError},
		{"and yes applies both", true, "yes\n", true, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zone := fmt.Sprintf("ackown%d.example.test", i)
			rr := func(label string, owned bool) pdnstest.RRset {
				r := pdnstest.RRset{Name: label + "." + zone + ".", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}}
				if owned {
					r.Comments = []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("office1")}}
				}
				return r
			}
			live := []pdnstest.RRset{rr("fw", false), rr("k1", true), rr("k2", true)}
			if tc.delete {
				live = append(live, rr("old", true))
			}
			srv.CreateZone(t, zone+".", live...)
			file := tenantFile(t, srv, zone, `fw: A: ["192.0.2.81"], k1: A: ["192.0.2.9"], k2: A: ["192.0.2.9"]`)
			useTerminal(t, true, tc.answer)
			code, stdout, stderr := siteRun(t, srv, "apply", file, "--ack", "GATE-DNS-OVERWRITE")
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if asked := strings.Contains(stderr, "Type yes: "); asked != tc.asked {
				t.Errorf("asked: %v, want %v\nstderr:\n%s", asked, tc.asked, stderr)
			}
			if tc.asked {
				want := "1 change in the plan above can cause an outage, delete or replace data (besides 1 change that --ack answered):\n" +
					"  delete dns/" + zone + "./old." + zone + "./A [live]\nApply these changes?"
				if !strings.Contains(stderr, want) {
					t.Errorf("the question does not list exactly the unanswered delete; want\n%s\nin:\n%s", want, stderr)
				}
			}
			applied := tc.code == exitOK
			if got := srv.Query(t, "fw."+zone+".", "A"); (len(got) == 1 && strings.HasSuffix(got[0], "192.0.2.81")) != applied {
				t.Errorf("fw is %v, overwritten want %v", got, applied)
			}
			if tc.delete {
				if got := len(srv.Query(t, "old."+zone+".", "A")) == 0; got != applied {
					t.Errorf("old deleted: %v, want %v", got, applied)
				}
			}
		})
	}
}

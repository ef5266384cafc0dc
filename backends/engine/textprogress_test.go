package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/plan"
)

func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		name        string
		live, color bool
		want        string
	}{
		{
			name: "plain lines for logs and pipes",
			want: "[1/3] dns/a.example. applied: 12 changes\n" +
				"[2/3] dns/b.example. failed: HTTP 500\n" +
				"[3/3] vm/test:///default/web unchanged\n" +
				"apply: done\n",
		},
		{
			name: "one updating line on a terminal, trouble stays",
			live: true,
			want: "\r\x1b[K[1/3] dns/a.example. applied: 12 changes" +
				"\r\x1b[K[2/3] dns/b.example. failed: HTTP 500\n" +
				"\r\x1b[K[3/3] vm/test:///default/web unchanged" +
				"\r\x1b[Kapply: done\n",
		},
		{
			name: "colour only when asked",
			live: true, color: true,
			want: "\r\x1b[K[1/3] dns/a.example. \x1b[32mapplied\x1b[0m: 12 changes" +
				"\r\x1b[K[2/3] dns/b.example. \x1b[31mfailed\x1b[0m: HTTP 500\n" +
				"\r\x1b[K[3/3] vm/test:///default/web \x1b[2munchanged\x1b[0m" +
				"\r\x1b[Kapply: done\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := NewTextProgress(&b, tc.live, tc.color)
			p.ApplyStart(3)
			p.step("dns/a.example.", StatusApplied, "12 changes")
			p.step("dns/b.example.", StatusFailed, "HTTP 500")
			p.step("vm/test:///default/web", StatusUnchanged, "")
			p.done("done")
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestProgressHook: what the engine reports becomes the words of a
// progress line: counts of changes and problems, or the reason.
func TestProgressHook(t *testing.T) {
	var b bytes.Buffer
	p := NewTextProgress(&b, false, false)
	p.ApplyStart(3)
	p.Applied(StepReport{Step: "dns/a.example.", Status: StatusApplied, Changes: 1,
		Problems: []string{"x", "y"}})
	p.Applied(StepReport{Step: "dns/b.example.", Status: StatusFailed, Reason: "HTTP 500"})
	p.Applied(StepReport{Step: "vm/test:///default/web", Status: StatusUnchanged})
	p.ApplyDone(&Report{Steps: []StepReport{{Status: StatusApplied, Requests: 1}}})
	want := "[1/3] dns/a.example. applied: 1 change (2 problems)\n" +
		"[2/3] dns/b.example. failed\n" + // the report says why, once
		"[3/3] vm/test:///default/web unchanged: no changes\n" +
		"apply: 1 applied; 1 request\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestProgressAfterInterrupt: a step not observed because the run was
// interrupted reads as that, not as "blocked", the word for a backend
// that refused or a gate.
func TestProgressAfterInterrupt(t *testing.T) {
	var b bytes.Buffer
	p := NewTextProgress(&b, false, false)
	p.PlanStart(3)
	p.Observed("dns/a.example.", nil, &plan.Blocked{Step: "dns/a.example.", Reason: "connection refused"})
	p.interrupted()
	p.Observed("vm/test:///default/web", nil, &plan.Blocked{Step: "vm/test:///default/web", Reason: "not observed: context canceled"})
	p.Observed("dns/b.example.", nil, &plan.Blocked{Step: "dns/b.example.", Skipped: true})
	want := "[1/3] dns/a.example. blocked\n" +
		"[2/3] vm/test:///default/web not observed (interrupted)\n" +
		"[3/3] dns/b.example. not observed (interrupted)\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestProgressLiveLineFitsOneRow(t *testing.T) {
	var b bytes.Buffer
	p := NewTextProgress(&b, true, false)
	p.PlanStart(1)
	p.Observed("dns/"+strings.Repeat("x", 200)+".example.", &backends.StepPlan{}, nil)
	line := strings.TrimPrefix(b.String(), "\r\x1b[K")
	if n := len([]rune(line)); n != liveWidth {
		t.Errorf("live line has %d runes, want %d", n, liveWidth)
	}
}

// TestProgressMultiLineDetail: a reason of several lines (a secret store
// lists each address it tried) stays indented under its step in a log,
// and a live line keeps to one row.
func TestProgressMultiLineDetail(t *testing.T) {
	const detail = "no address answered:\n  tried http://a: refused\nwhat to do: start it"
	for _, tc := range []struct {
		name string
		live bool
		st   Status
		want string
	}{
		{name: "log", st: StatusBlocked,
			want: "[1/1] secret/t/p#k blocked: no address answered:\n      tried http://a: refused\n    what to do: start it\n"},
		{name: "terminal, trouble stays whole", live: true, st: StatusBlocked,
			want: "\r\x1b[K[1/1] secret/t/p#k blocked: no address answered:\n      tried http://a: refused\n    what to do: start it\n"},
		{name: "terminal, live line is one row", live: true, st: StatusObserved,
			want: "\r\x1b[K[1/1] secret/t/p#k observed: no address answered: …"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := NewTextProgress(&b, tc.live, false)
			p.PlanStart(1)
			p.step("secret/t/p#k", tc.st, detail)
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestObservedLine: the changes counted are those of the steps
// planned; with none planned, "no changes" would read as converged. A
// step not planned may have been observed and refused, so the line
// does not call it "not observed".
func TestObservedLine(t *testing.T) {
	for _, tc := range []struct {
		planned, blocked, changes int
		want                      string
	}{
		{3, 0, 12, "observed 3 of 3 steps, 12 changes"},
		{1, 0, 0, "observed 1 of 1 step, no changes"},
		{0, 2, 0, "planned 0 of 2 steps (2 not planned)"},
		{1, 2, 1, "planned 1 of 3 steps (2 not planned), 1 change in those planned"},
		{2, 1, 0, "planned 2 of 3 steps (1 not planned), no changes in those planned"},
	} {
		if got := observedLine(tc.planned, tc.blocked, tc.changes); got != tc.want {
			t.Errorf("observedLine(%d, %d, %d) = %q, want %q", tc.planned, tc.blocked, tc.changes, got, tc.want)
		}
	}
}

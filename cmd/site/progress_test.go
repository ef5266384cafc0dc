package backends

import (
	"bytes"
	"strings"
	"testing"
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
			p := newProgress(&b, 3, "apply", tc.live, tc.color)
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

func TestProgressLiveLineFitsOneRow(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 1, "observe", true, false)
	p.step("dns/"+strings.Repeat("x", 200)+".example.", statusOK, "no changes")
	line := strings.TrimPrefix(b.String(), "\r\x1b[K")
	if n := len([]rune(line)); n != liveWidth {
		t.Errorf("live line has %d runes, want %d", n, liveWidth)
	}
}

func TestProgressNilIsSilent(t *testing.T) {
	var p *progress
	p.step("dns/a.example.", StatusApplied, "")
	p.done("done")
	if got := (&Engine{}).progress(3, "apply"); got != nil {
		t.Errorf("an engine without Progress writer made a progress: %+v", got)
	}
}

func TestProgressNotLiveOnBuffer(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer counts as a terminal")
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
		{name: "log", st: statusBlocked,
			want: "[1/1] secret/t/p#k blocked: no address answered:\n      tried http://a: refused\n    what to do: start it\n"},
		{name: "terminal, trouble stays whole", live: true, st: statusBlocked,
			want: "\r\x1b[K[1/1] secret/t/p#k blocked: no address answered:\n      tried http://a: refused\n    what to do: start it\n"},
		{name: "terminal, live line is one row", live: true, st: statusOK,
			want: "\r\x1b[K[1/1] secret/t/p#k observed: no address answered: …"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			newProgress(&b, 1, "observe", tc.live, false).step("secret/t/p#k", tc.st, detail)
			if got := b.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

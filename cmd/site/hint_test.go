package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/hint"
)

// TestErrorHintLine: an error with advice prints its cause on the
// "site:" line and the advice on an indented "hint:" line; one whose
// advice a wrapper buried mid-text prints it once, in the text.
func TestErrorHintLine(t *testing.T) {
	again := hint.Hint{Kind: hint.RunAgain}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"plain", errors.New("zone a.: HTTP 500"), "site: zone a.: HTTP 500\n"},
		{"hinted", fmt.Errorf("apply: %w", hint.Errorf(again, "zone a.: created, SOA not set")),
			"site: apply: zone a.: created, SOA not set\n  hint: run site apply again to converge\n"},
		{"advice not at the end", fmt.Errorf("%w (and more)", hint.Errorf(again, "zone a.")),
			"site: zone a.; run site apply again to converge (and more)\n"},
		{"exit code wrapper", withCode(exitGated, hint.Errorf(hint.Hint{Kind: hint.Acknowledge, Gate: "GATE-VM-DESTROY"}, "nothing was changed")),
			"site: nothing was changed\n  hint: rerun with --ack GATE-VM-DESTROY\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			var ee *exitErr
			if errors.As(tc.err, &ee) {
				writeError(&b, ee.err)
			} else {
				writeError(&b, tc.err)
			}
			if b.String() != tc.want {
				t.Errorf("got %q, want %q", b.String(), tc.want)
			}
		})
	}
}

// TestHintKindsDocumented: site help exit-codes lists every kind of
// hint --format json can write, by the name it writes.
func TestHintKindsDocumented(t *testing.T) {
	doc, err := Help.ReadFile("help/exit-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range hint.Kinds() {
		if !strings.Contains(string(doc), "| `"+k.String()+"` |") {
			t.Errorf("help/exit-codes.md has no row for hint kind %s", k)
		}
	}
}

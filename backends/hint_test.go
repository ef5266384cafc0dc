package backends

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/site-tools/site/compiler/hint"
)

// TestErrorsCarryTheirHint: a request with no answer and a partial
// write say what to do as a typed hint, found through wrapping, and
// their text ends with that hint rendered.
func TestErrorsCarryTheirHint(t *testing.T) {
	hung := Retry{Tries: 5, Within: 20 * time.Millisecond, Backoff: time.Millisecond, Classify: classifyTest}
	noAnswer := hung.Do(context.Background(), func(ctx context.Context) error {
		<-ctx.Done()
		return errors.Join(errTransient, ctx.Err())
	})
	tests := []struct {
		name   string
		err    error
		want   hint.Hint
		suffix string // what the text ends with after the hint
	}{
		{"no answer", noAnswer, hint.Hint{Kind: hint.RaiseTimeout, Setting: "--request-timeout"}, ""},
		{"not sent after no answer", &NoAnswerError{Server: "pdns", Request: "GET /zones", Within: time.Second, Earlier: true},
			hint.Hint{Kind: hint.RaiseTimeout, Setting: "--request-timeout"}, ""},
		{"interrupted part way", &PartialError{Applied: 1, Total: 3, Err: ErrInterrupted}, hint.Hint{Kind: hint.RunAgain}, ""},
		{"a part failed", &PartialError{Applied: 2, Total: 3, Err: errors.New("HTTP 500")}, hint.Hint{Kind: hint.RunAgain}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("step dns/example.org: %w", tc.err)
			if got := hint.Of(err); got != tc.want {
				t.Errorf("hint.Of = %+v (%v), want %+v", got, got.Kind, tc.want)
			}
			if !strings.HasSuffix(err.Error(), tc.want.Render()+tc.suffix) {
				t.Errorf("text %q does not end with %q", err, tc.want.Render()+tc.suffix)
			}
		})
	}
}

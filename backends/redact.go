package backends

import "strings"

// redacted stands in for a secret value in any text a user reads.
const redacted = "[redacted]"

// redact replaces every secret value read in this run with [redacted].
// Drivers should never put a credential into an error, but an HTTP
// client's error can echo a URL or header; the executor scrubs every
// reason, problem and note it reports so a slip cannot reach the screen
// or a saved plan. Values shorter than 4 bytes are left alone: replacing
// them would garble ordinary words and they guard nothing.
func (r *Run) redact(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.secrets {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, redacted)
		}
	}
	return s
}

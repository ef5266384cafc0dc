package main

import (
	"strings"
	"testing"
)

// TestDeleteUnderAWildcardConverges: deleting a name that a wildcard
// of the zone also covers leaves the server answering from the
// wildcard. That answer is synthesised, not the deleted record, so
// apply must not report it as a delete that did not happen.
func TestDeleteUnderAWildcardConverges(t *testing.T) {
	tests := []struct{ name, first, second string }{
		{"a name beside an apex wildcard", `"*": A: ["192.0.2.1"]
			www: A: ["192.0.2.2"]`, `"*": A: ["192.0.2.1"]`},
		{"a wildcard under another wildcard", `"*": A: ["192.0.2.1"]
			"*.apps": A: ["192.0.2.2"]`, `"*": A: ["192.0.2.1"]`},
		{"a TXT where a wildcard TXT answers", `"*": TXT: ["any"]
			www: TXT: ["mine"]`, `"*": TXT: ["any"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdnsEnv(t)
			srv.CreateZone(t, "wild.test.")
			if code, out, errOut := siteRun(t, srv, "apply", tenantFile(t, srv, "wild.test", tt.first)); code != exitOK {
				t.Fatalf("first apply exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			file := tenantFile(t, srv, "wild.test", tt.second)
			code, out, errOut := siteRun(t, srv, "apply", "--yes", file)
			if code != exitOK || !strings.Contains(out, "# dns/wild.test.") || !strings.Contains(out, "1 to delete") {
				t.Fatalf("apply of the delete exit %d, want 0 and a delete\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if code, out, errOut := siteRun(t, srv, "diff", "--detailed-exitcode", file); code != exitOK {
				t.Errorf("diff after the delete exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
		})
	}
}

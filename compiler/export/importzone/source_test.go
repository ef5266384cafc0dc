package importzone

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSource: the formats site import reads, its source from a file or
// stdin, a missing file said with what to give, and the lines site.cue
// needs.
func TestSource(t *testing.T) {
	if err := CheckFormat("bind"); err != nil {
		t.Errorf("bind: %v", err)
	}
	if err := CheckFormat("terraform"); err == nil || err.Error() != `site import cannot read "terraform": name one of bind, octodns, dnscontrol` {
		t.Errorf("terraform: %v", err)
	}
	src, name, err := ReadSource("-", strings.NewReader("zone"))
	if err != nil || string(src) != "zone" || name != "stdin" {
		t.Errorf("stdin: %q, %q, %v", src, name, err)
	}
	file := filepath.Join(t.TempDir(), "a.zone")
	if _, _, err := ReadSource(file, nil); err == nil || !strings.Contains(err.Error(), "a.zone does not exist; give the file the other tool keeps the zone in") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, name, err := ReadSource(file, nil); err != nil || string(src) != "data" || name != file {
		t.Errorf("file: %q, %q, %v", src, name, err)
	}
	var b bytes.Buffer
	WriteSiteNeeds(&b, Request{Tenant: "lab", Provider: "pdns"}, []string{"a.test", "b.test"})
	want := "site.cue must declare provider pdns and grant the tenant the zones and the provider:\n\ntenants: lab: {domains: [\"a.test\", \"b.test\"], providers: [\"pdns\"]}\n"
	if b.String() != want {
		t.Errorf("site.cue lines:\n%s\nwant:\n%s", b.String(), want)
	}
}

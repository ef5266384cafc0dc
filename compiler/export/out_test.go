package export

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"
)

// TestCheckAllOut: export --all makes its directories, and refuses
// before reading when a file it would write is there, unless --force.
func TestCheckAllOut(t *testing.T) {
	dir := t.TempDir()
	files := ZoneFileNames(dir, []string{"a.example.", "b.example."}, "cue", "lab")
	if err := CheckAllOut(dir, files, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[1], []byte("x"), 0o644); err != nil {
		t.Fatalf("the directory was not made: %v", err)
	}
	err := CheckAllOut(dir, files, false)
	if err == nil || !strings.Contains(err.Error(), "holds 1 file export --all would replace ("+files[1]+"); nothing was read or written") {
		t.Errorf("a file there: %v", err)
	}
	if err := CheckAllOut(dir, files, true); err != nil {
		t.Errorf("--force: %v", err)
	}
}

// TestWriteNotes: what export says of the operator's file, by whether
// it grants the zone already, declares the server, or neither; what was
// left out; vet's warnings. A zone file needs no lines.
func TestWriteNotes(t *testing.T) {
	zone := &model.Zone{Name: "a.example."}
	declared := Declared{Provider: model.Provider{Name: "pdns"}, In: "site.cue"}
	for _, tc := range []struct {
		name     string
		site     string
		d        Declared
		zoneFile bool
		want     string
	}{
		{"granted", "", declared, false, "site.cue grants tenant lab zone a.example. on provider pdns already; it needs no lines\n"},
		{"declared", "grant\n", declared, false, "site.cue declares this server as provider pdns; it needs these lines to grant it:\n\ngrant\n\n"},
		{"undeclared", "provider\n", Declared{}, false, "the operator's site.cue needs these lines for it:\n\nprovider\n\n"},
		{"zone file", "provider\n", Declared{}, true, ""},
	} {
		a := &Adoption{Zone: zone, Site: []byte(tc.site), Skipped: []string{"x TYPE65534"}, Warnings: []string{"w"}}
		var b bytes.Buffer
		a.WriteNotes(&b, tc.d, "lab", tc.zoneFile)
		if want := tc.want + "left out: x TYPE65534\nwarning: w\n"; b.String() != want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, b.String(), want)
		}
	}
}

// TestCheckFlags: export's flags that cannot go together are refused
// before anything is read.
func TestCheckFlags(t *testing.T) {
	for _, tc := range []struct {
		name              string
		format            string
		adopt, all        bool
		zone, domain, out string
		want              string
	}{
		{name: "spec", format: "cue", zone: "a.example"},
		{name: "all", format: "zone", all: true, out: "dir"},
		{name: "format", format: "yaml", want: `--format "yaml": give cue`},
		{name: "adopt zone file", format: "zone", adopt: true, want: "--format zone writes none"},
		{name: "all and zone", format: "cue", all: true, zone: "a.example", out: "dir", want: "give no --zone or --domain"},
		{name: "all without out", format: "cue", all: true, want: "name their directory with --out DIR"},
	} {
		err := CheckFlags(tc.format, tc.adopt, tc.all, tc.zone, tc.domain, tc.out)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

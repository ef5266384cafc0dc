package compiler

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/site-tools/site/compiler/model"

	"github.com/site-tools/site/compiler/golden"
)

// loadCase loads testdata/rules/NAME.txtar, checks its golden output as
// TestRules does, and returns the diagnostics for the test to look
// into.
func loadCase(t *testing.T, name string) Diagnostics {
	t.Helper()
	archive := "testdata/rules/" + name + ".txtar"
	if _, got := loadArchive(t, archive); got == "" {
		t.Fatalf("%s: Load accepted an invalid spec", name)
	} else {
		golden.Check(t, "testdata/rules/"+name+".golden", []byte(got))
	}
	// Load once more for the structured diagnostics.
	dir := extract(t, archive)
	_, err := Load(filepath.Join(dir, "site.cue"), []string{dir + "/..."})
	var diags Diagnostics
	if !errors.As(err, &diags) {
		t.Fatalf("Load: got %v, want Diagnostics", err)
	}
	return diags
}

// TestIncident2_TwoWritersCNAMEvsA: one writer (a zone's records) puts a
// CNAME at v4.example.com., another (a VM's publish) an A record. Two
// writers of one canonical name are a conflict whatever their types;
// the error names both elements.
func TestIncident2_TwoWritersCNAMEvsA(t *testing.T) {
	diags := loadCase(t, "incident2_cname_vs_publish")
	if len(diags) != 1 {
		t.Fatalf("got %d diagnostics, want 1:\n%v", len(diags), diags)
	}
	d := diags[0]
	for _, want := range []string{"two writers for v4.example.com.", "CNAME", "A by", "vms.gw.publish", `records.v4`} {
		if !strings.Contains(d.Msg, want) {
			t.Errorf("message %q does not mention %q", d.Msg, want)
		}
	}
	if len(d.Related) != 1 || !d.Pos.IsValid() || !d.Related[0].IsValid() || d.Pos == d.Related[0] {
		t.Errorf("got positions %v and related %v, want the two writers' distinct positions", d.Pos, d.Related)
	}
}

// TestIncident2_TwoSpellingsOneName: "api" and "api.example.com." in one
// zone are one name; a spec that spells it twice is refused, pointing at
// both spellings.
func TestIncident2_TwoSpellingsOneName(t *testing.T) {
	for _, name := range []string{
		"incident2_two_spellings_relative_absolute",
		"two_spellings_case",
		"two_spellings_idna",
		"two_spellings_publish",
		"two_spellings_zone",
	} {
		t.Run(name, func(t *testing.T) {
			diags := loadCase(t, name)
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1:\n%v", len(diags), diags)
			}
			d := diags[0]
			if !strings.Contains(d.Msg, "two spellings of") {
				t.Errorf("got %q, want a two-spellings error", d.Msg)
			}
			if len(d.Related) != 1 || d.Related[0].Line >= d.Pos.Line && d.Related[0].Col >= d.Pos.Col {
				t.Errorf("got %v (related %v), want the later spelling reported and the earlier one related", d.Pos, d.Related)
			}
		})
	}
}

// TestIncident3_AutostartNotDeclared: a VM (or network) without
// autostart is refused: there is no default, because a default hid the
// drift that bounced live guests. The error is positioned in the user's
// file, not the schema, and comes in the same run as other errors.
func TestIncident3_AutostartNotDeclared(t *testing.T) {
	diags := loadCase(t, "incident3_autostart_not_declared")
	var missing []string
	for _, d := range diags {
		if strings.HasPrefix(d.Pos.File, "schema/") || !strings.HasSuffix(d.Pos.File, "a.cue") {
			t.Errorf("diagnostic positioned outside the user's file: %v", d)
		}
		if strings.Contains(d.Msg, "autostart must be declared") {
			missing = append(missing, d.Path)
		}
	}
	want := "tenants.a.networks.lan.autostart,tenants.a.vms.web.autostart"
	if got := strings.Join(missing, ","); got != want {
		t.Errorf("undeclared autostart reported at %q, want %q", got, want)
	}
	if len(diags) != 3 {
		t.Errorf("got %d diagnostics, want 3 (two undeclared, one of the wrong type) in one run:\n%v", len(diags), diags)
	}
}

// TestWriterOfPublish checks that a VM's publish becomes RRsets of the
// zone, written by the VM.
func TestWriterOfPublish(t *testing.T) {
	spec, err := Load("../site.cue", []string{"../tenants/sjc.cue"})
	if err != nil {
		t.Fatal(err)
	}
	z := spec.Tenants[0].Zones[0]
	var got []string
	for _, rs := range z.RRsets {
		if rs.Writer.Kind == model.WriterVMPublish {
			got = append(got, rs.Name+" "+rs.Type+" "+strings.Join(rs.Values, ",")+" "+rs.Writer.Element)
		}
	}
	want := "keys.sjc.example.net. A 203.0.113.10 vms.keys.publish|vault.sjc.example.net. A 203.0.113.10 vms.keys.publish"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got %q, want %q", g, want)
	}
}

// TestPublishPTR checks that publish ptr: true makes the VM the writer
// of its address's PTR, naming its first published name, in the
// covering reverse zone: the RFC 2317 block for .5, the smaller block
// 10-20 for .12 (spelt FIRST-LAST, inside 0/26), the unaligned block
// 100-120 for .110, the /24 zone (with its TTL) for .200, the ip6.arpa
// zone for an IPv6 address.
func TestPublishPTR(t *testing.T) {
	spec, _ := loadArchive(t, "testdata/valid/publish_ptr.txtar")
	if spec == nil {
		t.Fatal("Load rejected testdata/valid/publish_ptr.txtar")
	}
	var got []string
	for _, z := range spec.Tenants[0].Zones {
		for _, rs := range z.RRsets {
			if rs.Type == "PTR" {
				got = append(got, fmt.Sprintf("%s %s %d %s %s", z.Name, rs.Name, rs.TTL, strings.Join(rs.Values, ","), rs.Writer.Element))
			}
		}
	}
	slices.Sort(got)
	want := []string{
		"0/26.2.0.192.in-addr.arpa. 5.0/26.2.0.192.in-addr.arpa. 300 low.example.com. vms.low.publish.ptr",
		"10-20.2.0.192.in-addr.arpa. 12.10-20.2.0.192.in-addr.arpa. 300 mid.example.com. vms.mid.publish.ptr",
		"100-120.2.0.192.in-addr.arpa. 110.100-120.2.0.192.in-addr.arpa. 300 range.example.com. vms.range.publish.ptr",
		"2.0.192.in-addr.arpa. 200.2.0.192.in-addr.arpa. 3600 high.example.com. vms.high.publish.ptr",
		"8.b.d.0.1.0.0.2.ip6.arpa. 7.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa. 300 six.example.com. vms.six.publish.ptr",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got PTRs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, vm := range spec.Tenants[0].VMs {
		if vm.Name == "low" && vm.Publish.PTR != "5.0/26.2.0.192.in-addr.arpa." {
			t.Errorf("vm low: Publish.PTR = %q, want the name it writes", vm.Publish.PTR)
		}
	}
}

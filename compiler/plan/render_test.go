package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/site-tools/site/compiler/golden"
)

// fullPlan has one change of every action, several impacts and gates,
// a blocked step with a gate and its skipped dependent, a step not
// observed and one observed and refused.
func fullPlan() *Plan {
	p := New()
	p.Changes = []Change{
		{Key: "dns/sjc.example.net./keys.sjc.example.net./A", Step: "dns/sjc.example.net.", Phase: PhaseDNS, Tenant: "sjc",
			Action: ActionCreate, Impact: ImpactLive,
			After: map[string]any{"ttl": 300, "values": []string{"203.0.113.10"}}},
		{Key: "dns/sjc.example.net./www.sjc.example.net./CNAME", Step: "dns/sjc.example.net.", Phase: PhaseDNS, Tenant: "sjc",
			Action: ActionUpdate, Impact: ImpactOverwrite, Gates: []Gate{GateDNSOverwrite},
			Reason: "foreign A record with other content (no owner marker)",
			Before: map[string]any{"ttl": 300, "type": "A", "values": []string{"198.51.100.7"}},
			After:  map[string]any{"ttl": 300, "type": "CNAME", "values": []string{"sjc.example.net."}}},
		{Key: "dns/sjc.example.net./old.sjc.example.net./TXT", Step: "dns/sjc.example.net.", Phase: PhaseDNS, Tenant: "sjc",
			Action: ActionDelete, Impact: ImpactLive,
			Before: map[string]any{"ttl": 60, "values": []string{`"v=spf1 -all"`}}},
		{Key: "dns/sjc.example.net./mx.sjc.example.net./MX", Step: "dns/sjc.example.net.", Phase: PhaseDNS, Tenant: "sjc",
			Action: ActionAdopt, Impact: ImpactNone, Reason: "identical foreign data: mark it as ours",
			After: map[string]any{"ttl": 300, "values": []string{"10 mx.example.org."}}},
		{Key: "vm/qemu:///system/keys/memory", Step: "vm/qemu:///system/keys", Phase: PhaseVM, Tenant: "sjc",
			Action: ActionUpdate, Impact: ImpactNextBoot, Reason: "defined for the next boot; the guest keeps running",
			Before: map[string]any{"memory": "1GiB", "vcpus": 2}, After: map[string]any{"memory": "2GiB", "vcpus": 2}},
		{Key: "vm/qemu:///system/keys/autostart", Step: "vm/qemu:///system/keys", Phase: PhaseVM, Tenant: "sjc",
			Action: ActionUpdate, Impact: ImpactLive,
			Before: map[string]any{"autostart": false}, After: map[string]any{"autostart": true}},
		{Key: "vm/qemu:///system/keys/restart", Step: "vm/qemu:///system/keys", Phase: PhaseVM, Tenant: "sjc",
			Action: ActionUpdate, Impact: ImpactRestart, Gates: []Gate{GateVMRestart},
			Reason: "--restart sjc/keys: stop and start the guest so pending changes take effect"},
	}
	p.Changes = append(p.Changes,
		Change{Key: "vm/qemu:///system/files", Step: "vm/qemu:///system/files", Phase: PhaseVM, Tenant: "office1",
			Action: ActionCreate, Impact: ImpactNone, Reason: "new domain (kvm)",
			After: map[string]any{"memory": "2GiB", "vcpus": 2}})
	p.Blocked = []Blocked{
		{Step: "secret/lab/dns/cloudflare#token", Phase: PhaseSecrets, Tenant: "lab", Gate: GateSecretUnreachable,
			Reason: "no Vault answered:\n  tried https://keys.lab.example.net: no such host\n  tried http://10.77.0.13:8200: connection refused"},
		{Step: "dns/lab.example.net.", Phase: PhaseDNS, Tenant: "lab", Gate: GateSecretUnreachable, Skipped: true,
			Reason: "not observed: it depends on secret/lab/dns/cloudflare#token, which was not planned"},
		{Step: "dns/other.example.", Phase: PhaseDNS, Tenant: "other",
			Reason: "GET http://127.0.0.1:8081/api/v1/servers/localhost/zones/other.example.: connection refused"},
		{Step: "vm/qemu:///system/mail", Phase: PhaseVM, Tenant: "office1",
			Reason: "tenants/office1.cue:12:30: VM mail on qemu:///system: volume default/old-root is attached to domain old, a domain site does not manage (no site owner element; running), as its disk vda: as this VM's disk it would give the VM that domain's data, so site refuses it; name another volume, or have the operator remove domain old or detach the volume from it (virsh -c qemu:///system detach-disk old vda --live --config); nothing was changed"},
	}
	p.Fingerprints = map[string]string{"dns/sjc.example.net.": "sha256:0f1e", "vm/qemu:///system/keys": "sha256:a1b2"}
	p.Spec = &Spec{Paths: []string{"tenants/..."}, Files: map[string]string{"tenants/sjc.cue": "sha256:5e1c", "tenants/lab.cue": "sha256:1ab0"}}
	p.Options = &Options{Restart: []string{"sjc/keys"}, DeleteThreshold: 30, Acks: []Gate{GateSecretUnreachable}}
	p.Sort()
	return p
}

// signedNotes are the notes of a plan whose zones are signed: one with
// changes, one converged.
func signedNotes() []Note {
	return []Note{
		{Step: "dns/sjc.example.net.", Tenant: "sjc", Text: "DS for the parent: sjc.example.net. IN DS 12345 13 2 0a1b2c3d"},
		{Step: "dns/signed.example.", Tenant: "lab", Text: "DS for the parent: signed.example. IN DS 54321 13 2 4e5f6a7b"},
	}
}

// notesPlan is fullPlan with notes; notesConverged has notes only.
func notesPlan() *Plan {
	p := fullPlan()
	p.Notes = signedNotes()
	p.Sort()
	return p
}

// leasePlan has records waiting for a DHCP lease's address: one new,
// one replacing live data, whose before is that data.
func leasePlan() *Plan {
	p := New()
	reason := "address known after the guest takes its DHCP lease (VM web); apply waits for it"
	p.Changes = []Change{
		{Key: "dns/lab.example.net./web.lab.example.net./A", Step: "dns/lab.example.net.", Phase: PhaseDNS, Tenant: "lab",
			Action: ActionCreate, Impact: ImpactLive, Reason: reason,
			After: map[string]any{"ttl": 300, "lease": "of VM web, NIC 0"}},
		{Key: "dns/lab.example.net./www.lab.example.net./A", Step: "dns/lab.example.net.", Phase: PhaseDNS, Tenant: "lab",
			Action: ActionUpdate, Impact: ImpactLive, Reason: reason,
			Before: map[string]any{"ttl": 300, "values": []string{"192.0.2.7"}},
			After:  map[string]any{"ttl": 300, "lease": "of VM web, NIC 0"}},
		{Key: "dns/lab.example.net./old.lab.example.net./A", Step: "dns/lab.example.net.", Phase: PhaseDNS, Tenant: "lab",
			Action: ActionUpdate, Impact: ImpactLive, Reason: reason,
			Before: map[string]any{"ttl": 60, "values": []string{"192.0.2.8", "192.0.2.9"}, "owner": "(none)"},
			After:  map[string]any{"ttl": 300, "lease": "of VM web, NIC 0", "owner": "lab"}},
	}
	p.Sort()
	return p
}

func notesConverged() *Plan {
	p := New()
	p.Notes = signedNotes()[1:]
	return p
}

func TestWriteText(t *testing.T) {
	deferredOnly := fullPlan()
	deferredOnly.Changes = []Change{}
	deferredOnly.Blocked = nil
	for _, b := range fullPlan().Blocked {
		if b.Tenant == "lab" {
			deferredOnly.Blocked = append(deferredOnly.Blocked, b)
		}
	}
	for _, tc := range []struct {
		name string
		plan *Plan
		opts TextOptions
	}{
		{name: "plan_full.golden", plan: fullPlan()},
		{name: "plan_full_color.golden", plan: fullPlan(), opts: TextOptions{Color: true}},
		{name: "plan_deferred.golden", plan: deferredOnly, opts: TextOptions{Acked: map[Gate]bool{GateSecretUnreachable: true}}},
		{name: "plan_converged.golden", plan: New()},
		{name: "plan_notes.golden", plan: notesPlan()},
		{name: "plan_notes_converged.golden", plan: notesConverged()},
		{name: "plan_lease.golden", plan: leasePlan()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.plan.WriteText(&b, tc.opts); err != nil {
				t.Fatal(err)
			}
			if !tc.opts.Color && strings.Contains(b.String(), "\x1b[") {
				t.Error("colour codes without Color")
			}
			golden.Check(t, filepath.Join("testdata", tc.name), b.Bytes())
		})
	}
}

func TestWriteTextConvergedIsExact(t *testing.T) {
	var b bytes.Buffer
	if err := New().WriteText(&b, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "No changes. The live systems match the spec.\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWriteTextShowsPrerequisites: a scope names the steps it took in
// because a chosen step needs them, converged or not.
func TestWriteTextShowsPrerequisites(t *testing.T) {
	p := New()
	p.Prerequisites = []string{"network/qemu:///system/lan"}
	var b bytes.Buffer
	if err := p.WriteText(&b, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "Also in scope, as prerequisites of the chosen steps:\n  network/qemu:///system/lan\n\nNo changes. The live systems match the spec.\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSummaryLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []Change
		want    string
	}{
		{name: "counts and gates", changes: []Change{
			{Action: ActionCreate}, {Action: ActionCreate}, {Action: ActionCreate},
			{Action: ActionUpdate, Gates: []Gate{GateDNSOverwrite}}, {Action: ActionAdopt},
		}, want: "Plan: 3 to create, 1 to update, 0 to delete, 1 to adopt; gates needed: GATE-DNS-OVERWRITE."},
		{name: "no gates", changes: []Change{{Action: ActionDelete}},
			want: "Plan: 0 to create, 0 to update, 1 to delete, 0 to adopt."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New()
			p.Changes = tc.changes
			if got := p.Summarize(nil).String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan *Plan
	}{
		{name: "plan_full.json.golden", plan: fullPlan()},
		{name: "plan_converged.json.golden", plan: New()},
		{name: "plan_notes_converged.json.golden", plan: notesConverged()},
		{name: "plan_scoped.json.golden", plan: &Plan{Only: []Phase{PhaseDNS}}},
		{name: "plan_targeted.json.golden", plan: &Plan{Only: []Phase{PhaseDNS}, Targets: []string{"dns/*.example.net.", "dns/example.org."}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.plan.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name), b.Bytes())
		})
	}
}

// TestJSONSummary: the JSON plan counts what the text's last line
// counts, the acks the plan was made with (options.acks) deferring the
// steps they would defer in apply.
func TestJSONSummary(t *testing.T) {
	var b bytes.Buffer
	if err := fullPlan().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary *Summary `json:"summary"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := &Summary{Create: 2, Update: 4, Delete: 1, Adopt: 1,
		Gates:        []Gate{GateDNSOverwrite, GateSecretUnreachable, GateVMRestart},
		Acknowledged: []Gate{GateSecretUnreachable}, NotPlanned: 2, Deferred: 2}
	if !reflect.DeepEqual(got.Summary, want) {
		t.Errorf("summary %+v, want %+v", got.Summary, want)
	}
	var text bytes.Buffer
	if err := fullPlan().WriteText(&text, TextOptions{Acked: map[Gate]bool{GateSecretUnreachable: true}}); err != nil {
		t.Fatal(err)
	}
	line := "Plan: 2 to create, 4 to update, 1 to delete, 1 to adopt; gates needed: GATE-DNS-OVERWRITE, GATE-SECRET-UNREACHABLE (acknowledged), GATE-VM-RESTART; 2 steps not planned; 2 steps deferred."
	if !strings.Contains(text.String(), line) {
		t.Errorf("the text plan lacks %q:\n%s", line, text.String())
	}
}

func TestReadJSONRoundTrip(t *testing.T) {
	for _, full := range []func() *Plan{fullPlan, notesPlan} {
		roundTrip(t, full)
	}
}

// roundTrip writes full() as JSON, reads it back and compares both forms.
func roundTrip(t *testing.T, fullPlan func() *Plan) {
	t.Helper()
	var saved bytes.Buffer
	if err := fullPlan().WriteJSON(&saved); err != nil {
		t.Fatal(err)
	}
	p, err := ReadJSON(bytes.NewReader(saved.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := p.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if saved.String() != again.String() {
		t.Errorf("a plan read back writes differently:\nfirst:\n%s\nagain:\n%s", saved.String(), again.String())
	}
	// The text form of a plan read from a file must match the original's.
	var t1, t2 bytes.Buffer
	if err := fullPlan().WriteText(&t1, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteText(&t2, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if t1.String() != t2.String() {
		t.Errorf("text of a plan read back differs:\n%s\nvs\n%s", t1.String(), t2.String())
	}
	if !reflect.DeepEqual(p.Fingerprints, fullPlan().Fingerprints) {
		t.Errorf("fingerprints: got %v, want %v", p.Fingerprints, fullPlan().Fingerprints)
	}
}

func TestReadJSONRejects(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{name: "unknown version", in: `{"format_version": 3, "changes": []}`,
			want: "the plan has format_version 3 but this site reads only 2: save it again with this site's diff --out"},
		{name: "version 1, before spec and options", in: `{"format_version": 1, "changes": []}`,
			want: "the plan has format_version 1 but this site reads only 2: save it again with this site's diff --out"},
		{name: "no version", in: `{"changes": []}`,
			want: "the file is not a site plan: it has no format_version; save one with site diff --out plan.json"},
		{name: "not JSON", in: `Plan: 1 to create`, want: "the plan is not valid JSON"},
		{name: "unknown field", in: `{"format_version": 2, "changes": [], "resources": []}`,
			want: `the plan does not match format_version 2 (json: unknown field "resources")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSON(strings.NewReader(tc.in))
			if err == nil {
				t.Fatal("got no error")
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %q, want it to start with %q", err.Error(), tc.want)
			}
		})
	}
}

func TestParseGate(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Gate
		wantErr bool
	}{
		{in: "GATE-DNS-OVERWRITE", want: GateDNSOverwrite},
		{in: "GATE-SECRET-UNREACHABLE", want: GateSecretUnreachable},
		{in: "gate-dns-overwrite", wantErr: true},
		{in: "GATE-REBUILD-CONFIRM", wantErr: true},
		{in: "", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseGate(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if err != nil && !strings.Contains(err.Error(), "GATE-DNS-DELETE-MANY") {
				t.Errorf("error does not list the known gates: %v", err)
			}
		})
	}
}

func TestCatalogueHasMeanings(t *testing.T) {
	for _, g := range []Gate{GateDNSOverwrite, GateDNSDeleteMany, GateDNSUpdateMany, GateVMRestart, GateVMStop, GateVMDestroy, GateVMDiskResize, GateVMDiskRebase, GateNetDestroy, GateSecretUnreachable, GateDNSDisown, GateLockBreak} {
		if g.Meaning() == "" {
			t.Errorf("gate %s has no meaning", g)
		}
	}
	if got := len(Catalogue()); got != 12 {
		t.Errorf("catalogue has %d gates, want 12", got)
	}
}

func TestRenderValue(t *testing.T) {
	type mx struct {
		Priority int    `json:"priority"`
		Host     string `json:"host"`
	}
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{name: "string", v: "2GiB", want: `"2GiB"`},
		{name: "number", v: uint32(300), want: `300`},
		{name: "large number", v: uint64(2147483648), want: `2147483648`},
		{name: "list", v: []string{"192.0.2.1", "<x>"}, want: `["192.0.2.1","<x>"]`},
		{name: "struct sorts keys like a map read back", v: []mx{{10, "mx.example.org."}}, want: `[{"host":"mx.example.org.","priority":10}]`},
		{name: "nil", v: nil, want: `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(tc.v); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReadJSONKeepsScope reads back the scope a plan was saved with, so
// apply --plan can refuse another --only or --target.
func TestReadJSONKeepsScope(t *testing.T) {
	want := &Plan{FormatVersion: FormatVersion, Only: []Phase{PhaseDNS}, Targets: []string{"dns/*.example.net.", "vm/*/keys"},
		Changes: []Change{}, Fingerprints: map[string]string{}}
	var b bytes.Buffer
	if err := want.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Only, want.Only) || !reflect.DeepEqual(got.Targets, want.Targets) {
		t.Errorf("got only %q targets %q, want only %q targets %q", got.Only, got.Targets, want.Only, want.Targets)
	}
}

func TestWriteMarkdown(t *testing.T) {
	deferredOnly := fullPlan()
	deferredOnly.Changes = []Change{}
	deferredOnly.Blocked = deferredOnly.Blocked[:0]
	for _, b := range fullPlan().Blocked {
		if b.Tenant == "lab" {
			deferredOnly.Blocked = append(deferredOnly.Blocked, b)
		}
	}
	for _, tc := range []struct {
		name  string
		plan  *Plan
		acked map[Gate]bool
	}{
		{name: "plan_full.md.golden", plan: fullPlan()},
		{name: "plan_full_acked.md.golden", plan: fullPlan(), acked: map[Gate]bool{GateDNSOverwrite: true, GateSecretUnreachable: true}},
		{name: "plan_deferred.md.golden", plan: deferredOnly, acked: map[Gate]bool{GateSecretUnreachable: true}},
		{name: "plan_converged.md.golden", plan: New()},
		{name: "plan_notes.md.golden", plan: notesPlan()},
		{name: "plan_notes_converged.md.golden", plan: notesConverged()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.plan.WriteMarkdown(&b, tc.acked); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name), b.Bytes())
		})
	}
}

// TestWriteMarkdownFailure: a diff that stopped before its plan still
// gives its pull request comment the reason, with the spec's own words
// (which may hold backticks) kept inside the code block.
func TestWriteMarkdownFailure(t *testing.T) {
	err := errors.New("the specs have errors (site vet lists the same), so nothing was observed:\n" +
		"tenants/office1.cue:12:5: tenants.office1.domain: domain is required; add it\n" +
		"tenants/office1.cue:20:14: TXT value \"```\" is not closed")
	var b bytes.Buffer
	if werr := WriteMarkdownFailure(&b, err); werr != nil {
		t.Fatal(werr)
	}
	golden.Check(t, filepath.Join("testdata", "plan_failure.md.golden"), b.Bytes())
}

// TestWriteMarkdownFence keeps a value with backticks (a TXT record may
// hold anything) inside its code block, and HTML in a step ID inside its
// <summary>.
func TestWriteMarkdownFence(t *testing.T) {
	p := New()
	p.Changes = []Change{{Key: "dns/x.example./t.x.example./TXT", Step: "dns/<x>.example.", Phase: PhaseDNS,
		Action: ActionCreate, Impact: ImpactLive, After: map[string]any{"values": []string{"```` end"}}}}
	var b bytes.Buffer
	if err := p.WriteMarkdown(&b, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "`````diff\n") {
		t.Errorf("the fence is not longer than the value's backticks:\n%s", out)
	}
	if !strings.Contains(out, "<code>dns/&lt;x&gt;.example.</code>") {
		t.Errorf("the step ID is not escaped in the summary:\n%s", out)
	}
}

// TestRenderPlainIsRender: the short way renders every value it takes
// exactly as the JSON round trip does, and declines what JSON escapes.
func TestRenderPlainIsRender(t *testing.T) {
	values := []any{
		"", "2GiB", "v=spf1 include:example.net -all", "<x>&y", `say "hi"`, `back\slash`, "tab\there", "é", "\x7f", "\u2028",
		[]string(nil), []string{}, []string{"192.0.2.1", "<x>"}, []string{"ok", `"quoted"`},
		0, -5, 300, int64(-1 << 40), uint32(4294967295), uint64(18446744073709551615), true, false,
	}
	taken := 0
	for _, v := range values {
		got, ok := renderPlain(v)
		if !ok {
			continue
		}
		taken++
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Errorf("%#v: renderPlain %s, JSON %s", v, got, want)
		}
	}
	if taken != len(values)-7 {
		t.Errorf("renderPlain took %d of %d values, want all but the 7 holding what JSON escapes", taken, len(values))
	}
}

// TestNoChangesSaysItsScope: a plan without changes says the live
// systems match the spec only when nothing scoped it; --only and
// --target leave steps unobserved, which may well differ (a diff with
// --target on one VM said "The live systems match the spec." while two
// removals were pending beside it).
//
// --only of a phase the specs have no step in (--only vm for a tenant
// of DNS alone) chose nothing: saying that what it chose matches the
// spec read as if something had been checked.
func TestNoChangesSaysItsScope(t *testing.T) {
	observed := map[string]string{"dns/example.org.": "powerdns:0123"}
	for _, tc := range []struct {
		only     []Phase
		targets  []string
		observed map[string]string
		want     string
	}{
		{nil, nil, observed, "No changes. The live systems match the spec.\n"},
		{[]Phase{PhaseDNS}, nil, observed, "No changes. The steps --only chose match the spec; the rest was not looked at.\n"},
		{nil, []string{"vm/*/web"}, observed, "No changes. The steps --target chose match the spec; the rest was not looked at.\n"},
		{[]Phase{PhaseVM}, []string{"vm/*/web"}, observed, "No changes. The steps --only and --target chose match the spec; the rest was not looked at.\n"},
		{[]Phase{PhaseVM, PhaseNetwork}, nil, nil, "No changes: --only vm,network keeps no step of these specs, so nothing was looked at.\n"},
		{nil, nil, nil, "No changes. The live systems match the spec.\n"},
	} {
		p := &Plan{Only: tc.only, Targets: tc.targets, Fingerprints: tc.observed}
		var text, md strings.Builder
		if err := p.WriteText(&text, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteMarkdown(&md, nil); err != nil {
			t.Fatal(err)
		}
		if text.String() != tc.want || !strings.HasSuffix(md.String(), tc.want) {
			t.Errorf("only %v, targets %v: text %q, markdown %q, want %q", tc.only, tc.targets, text.String(), md.String(), tc.want)
		}
	}
}

// TestRenderEscapesFormatCharacters: record data observed live may be
// written by anyone (PowerDNS keeps a TXT's UTF-8 as it was sent), and
// JSON leaves a right-to-left override as it is, which would reorder
// how the rest of the line reads on a terminal or in a comment. render
// shows every format character as a JSON escape, still valid JSON.
func TestRenderEscapesFormatCharacters(t *testing.T) {
	for _, v := range []any{"a\u202eb\u2066c\ufeffd\U000e0041", []string{"ok", "a\u202eb"}, map[string]any{"values": []string{"\u200fx"}}} {
		got := render(v)
		if i := strings.IndexFunc(got, func(r rune) bool { return unicode.Is(unicode.Cf, r) }); i >= 0 {
			t.Errorf("render(%q) = %q, which holds a format character", v, got)
		}
		var back any
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("render(%q) = %q, not JSON: %v", v, got, err)
		}
	}
	if got, want := render("a\u202eb"), `"a\u202eb"`; got != want {
		t.Errorf("render = %s, want %s", got, want)
	}
}

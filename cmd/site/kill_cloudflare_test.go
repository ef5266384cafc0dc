package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/cloudflare"
	"github.com/site-tools/site/backends/cloudflare/cftest"
	"github.com/site-tools/site/compiler/plan"
)

// killZone is the Cloudflare zone of the kill-point test, tenant
// office1's.
const killZone = "kill.example.test"

// killZoneVersions are tenant office1's records in killZone: the
// change from the first to the second updates, adds and deletes records
// (patches, posts and deletes) across several names, and replaces the
// A record of alias with a CNAME (a delete and a post at one name).
var killZoneVersions = [2]string{`
		"@": TXT: ["v=site-1"]
		www: A: ["192.0.2.1"]
		api: AAAA: ["2001:db8::1"]
		old1: TXT: ["v1"]
		old2: A: ["192.0.2.50"]
		mail: MX: [{priority: 10, host: "mx1.example.org."}]
		alias: A: ["192.0.2.60"]
`, `
		"@": TXT: ["v=site-2"]
		www: A: ["192.0.2.2", "192.0.2.3"]
		api: AAAA: ["2001:db8::2"]
		new1: TXT: ["v2"]
		new2: CNAME: "www.kill.example.test."
		mail: MX: [{priority: 10, host: "mx1.example.org."}, {priority: 20, host: "mx2.example.org."}]
		alias: CNAME: "www.kill.example.test."
`}

// killBatchSize splits the change into batches of two operations (a
// name's operations stay together), so that the apply is several batch
// requests with boundaries between them.
const killBatchSize = "2"

// TestKilledCloudflareApplyConverges kills site apply (SIGKILL) at every
// request of a multi-batch change to a Cloudflare zone (the fake,
// cftest), once after the fake carried the request out but before site
// read the answer, once after the answer was sent. After each kill: the
// records of others (no marker, another tenant's marker) are as they
// were; site diff shows exactly the RRsets that differ from the spec,
// and no gate; site apply (after breaking the dead run's lock, as its
// refusal says) converges without an --ack, leaving no record twice,
// and the next diff is empty.
func TestKilledCloudflareApplyConverges(t *testing.T) {
	fx := newCloudflareKillFixture(t)

	// Each version's records as a clean apply leaves them: what the
	// checks compare with.
	fx.writeVersion(t, 1)
	fx.mustApply(t, "first apply")
	fx.writeVersion(t, 0)
	fx.mustApply(t, "the other version")
	wantOld := fx.ours()
	fx.writeVersion(t, 1)
	run := startKillable(t, "apply", "--yes", fx.file)
	fx.proxy.arm(run, 0, killUnanswered)
	run.wait(t, "the whole change")
	requests := fx.proxy.disarm()
	want := fx.ours()
	if reflect.DeepEqual(want, wantOld) {
		t.Fatal("the two versions leave the same records: nothing to kill")
	}
	batches := 0
	for _, r := range requests {
		if strings.HasSuffix(r, "/dns_records/batch") {
			batches++
		}
	}
	if batches < 3 {
		t.Fatalf("the change took %d batch requests, want 3 or more to kill between: %v", batches, requests)
	}
	t.Logf("the change: %d requests: %v", len(requests), requests)

	locked := 0
	for at := 1; at <= len(requests); at++ {
		for _, when := range []killMoment{killUnanswered, killAnswered} {
			what := fmt.Sprintf("killed at request %d of %d (%s, %s)", at, len(requests), requests[at-1], when)
			fx.writeVersion(t, 0)
			fx.mustApply(t, what+": setting the zone back")
			others, before := fx.others(), fx.ours()
			fx.writeVersion(t, 1)
			run := startKillable(t, "apply", "--yes", fx.file)
			fx.proxy.arm(run, at, when)
			killed := run.wait(t, what)
			fx.proxy.disarm()
			if !killed {
				t.Fatalf("%s: the run was not killed", what)
			}
			fx.checkOthers(t, what, others)
			checkNamesKept(t, what, before, fx.ours(), want)
			fx.checkDiffShowsWhatIsLeft(t, what, want)
			if fx.applyAfterKill(t, what) {
				locked++
			}
			fx.checkOthers(t, what+", after the next apply", others)
			if got := fx.ours(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: after the next apply the zone holds\n%v\nwant\n%v", what, got, want)
			}
			fx.checkNoDuplicates(t, what)
			if code, stdout, stderr := cfRun(t, "diff", "--detailed-exitcode", fx.file); code != exitOK {
				t.Errorf("%s: diff after the next apply exit %d, want 0\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
			}
		}
	}
	if locked == 0 {
		t.Errorf("no killed run left its lock behind: the kills all fell outside the apply")
	}
}

// cloudflareKillFixture is the fake Cloudflare behind a killProxy, a
// zone of tenant office1 that also holds records of others, and the
// tenant's spec.
type cloudflareKillFixture struct {
	cf     *cftest.Server
	proxy  *killProxy
	zoneID string
	file   string
}

func newCloudflareKillFixture(t *testing.T) *cloudflareKillFixture {
	t.Helper()
	cf := cftest.New(cfToken)
	t.Cleanup(cf.Close)
	proxy := &killProxy{next: cf.Config.Handler}
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	t.Setenv("CF_TOKEN", cfToken)
	t.Setenv("NO_COLOR", "1")
	t.Setenv(cloudflare.EnvAPIURL, "")
	// Read by the killed process too: it inherits the environment.
	t.Setenv(cloudflare.EnvBatchSize, killBatchSize)
	// The runs in this process need not keep to Cloudflare's request
	// rate; the killed one does, which costs it a quarter second a
	// request.
	useBackend(t, "cloudflare", func(bk *runBackends, _ *backends.Run) {
		bk.Providers["cloudflare"] = &cloudflare.Driver{RPS: 1000}
	})
	fx := &cloudflareKillFixture{cf: cf, proxy: proxy, zoneID: cf.AddZone(killZone)}
	for _, r := range []cftest.Record{
		{Name: "legacy." + killZone, Type: "A", Content: "192.0.2.200", TTL: 3600, Comment: "made by hand"},
		{Name: "_dmarc." + killZone, Type: "TXT", Content: `"v=DMARC1; p=none"`, TTL: 3600},
		{Name: "theirs." + killZone, Type: "A", Content: "192.0.2.201", TTL: 300, Comment: cloudflare.Marker("other")},
	} {
		if _, err := cf.AddRecord(fx.zoneID, r); err != nil {
			t.Fatalf("AddRecord %+v: %v", r, err)
		}
	}
	site := siteSrc(cfProvider("cf", front.URL, `{env: "CF_TOKEN"}`),
		grant{tenant: "office1", domains: []string{killZone}, providers: []string{"cf"}})
	fx.file = writeSpec(t, site, "office1.cue", "")
	return fx
}

// writeVersion writes tenant office1's spec with killZoneVersions[v].
func (fx *cloudflareKillFixture) writeVersion(t *testing.T, v int) {
	t.Helper()
	src := fmt.Sprintf("package tenants\n\ntenants: office1: {\n\tdomain: %q\n\tdns: zones: %q: {provider: \"cf\", ttl: 300, records: {%s\t}}\n}\n",
		killZone, killZone, killZoneVersions[v])
	if err := os.WriteFile(fx.file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustApply applies in this process and fails the test unless it
// converged.
func (fx *cloudflareKillFixture) mustApply(t *testing.T, what string) {
	t.Helper()
	if code, stdout, stderr := cfRun(t, "apply", "--yes", fx.file); code != exitOK {
		t.Fatalf("%s: apply exit %d\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
}

// ours is tenant office1's records, by RRset ("name type"), each record
// as what a write sets (content, priority, data, TTL, proxied), sorted.
func (fx *cloudflareKillFixture) ours() map[string][]string {
	out := map[string][]string{}
	for _, r := range fx.cf.Records(fx.zoneID) {
		if r.Comment != cloudflare.Marker("office1") {
			continue
		}
		k := r.Name + " " + r.Type
		out[k] = append(out[k], recordValue(r))
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

func recordValue(r cftest.Record) string {
	prio := ""
	if r.Priority != nil {
		prio = fmt.Sprint(*r.Priority)
	}
	return fmt.Sprintf("%q prio=%s data=%v ttl=%d proxied=%v", r.Content, prio, r.Data, r.TTL, r.Proxied)
}

// others is every record tenant office1 does not own, whole (id and
// times included, so that a rewrite with the same content shows).
func (fx *cloudflareKillFixture) others() []cftest.Record {
	var out []cftest.Record
	for _, r := range fx.cf.Records(fx.zoneID) {
		if r.Comment != cloudflare.Marker("office1") {
			out = append(out, r)
		}
	}
	return out
}

func (fx *cloudflareKillFixture) checkOthers(t *testing.T, what string, before []cftest.Record) {
	t.Helper()
	if after := fx.others(); !reflect.DeepEqual(after, before) {
		t.Errorf("%s: the records of others changed:\nbefore %+v\nafter  %+v", what, before, after)
	}
}

// checkNamesKept fails the test when a name the spec wants, which held
// records of the tenant before the killed run, holds none after it: a
// run stopped between batches must not leave a name unanswered (a
// name's delete travels with the records that replace it).
func checkNamesKept(t *testing.T, what string, before, after, want map[string][]string) {
	t.Helper()
	names := func(rrsets map[string][]string) map[string]bool {
		out := map[string]bool{}
		for k := range rrsets {
			name, _, _ := strings.Cut(k, " ")
			out[name] = true
		}
		return out
	}
	had, has := names(before), names(after)
	for name := range names(want) {
		if had[name] && !has[name] {
			t.Errorf("%s: %s, wanted and answered before the run, has no records of the tenant after it", what, name)
		}
	}
}

// checkNoDuplicates fails the test when two records of the zone are one
// record twice.
func (fx *cloudflareKillFixture) checkNoDuplicates(t *testing.T, what string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range fx.cf.Records(fx.zoneID) {
		k := r.Name + " " + r.Type + " " + recordValue(r)
		if seen[k] {
			t.Errorf("%s: record %s is in the zone twice", what, k)
		}
		seen[k] = true
	}
}

// checkDiffShowsWhatIsLeft runs site diff after a kill: it must plan
// exactly the RRsets of the tenant that differ from want, as creates,
// updates and deletes, none behind a gate.
func (fx *cloudflareKillFixture) checkDiffShowsWhatIsLeft(t *testing.T, what string, want map[string][]string) {
	t.Helper()
	have := fx.ours()
	wantChanges := map[string]plan.Action{}
	for k, w := range want {
		switch h, ok := have[k]; {
		case !ok:
			wantChanges[rrsetKey(k)] = plan.ActionCreate
		case !reflect.DeepEqual(h, w):
			wantChanges[rrsetKey(k)] = plan.ActionUpdate
		}
	}
	for k := range have {
		if _, ok := want[k]; !ok {
			wantChanges[rrsetKey(k)] = plan.ActionDelete
		}
	}
	code, stdout, stderr := cfRun(t, "diff", "--format", "json", "--detailed-exitcode", fx.file)
	wantCode := exitOK
	if len(wantChanges) > 0 {
		wantCode = exitChanges
	}
	if code != wantCode {
		t.Errorf("%s: diff exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, code, wantCode, stdout, stderr)
		return
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%s: diff's JSON: %v\n%s", what, err, stdout)
	}
	got := map[string]plan.Action{}
	for _, c := range p.Changes {
		got[c.Key] = c.Action
		if len(c.Gates) > 0 {
			t.Errorf("%s: diff puts %s behind %v", what, c.Key, c.Gates)
		}
	}
	if len(p.Blocked) > 0 {
		t.Errorf("%s: diff has blocked steps: %+v", what, p.Blocked)
	}
	if !reflect.DeepEqual(got, wantChanges) {
		t.Errorf("%s: diff plans %v, want %v (the zone holds %v)\nstderr:\n%s", what, got, wantChanges, have, stderr)
	}
}

// rrsetKey is the change key of an RRset "name type" of killZone.
func rrsetKey(rrset string) string {
	name, typ, _ := strings.Cut(rrset, " ")
	return "dns/" + killZone + "./" + name + "./" + typ
}

// applyAfterKill applies in this process as an operator would after a
// killed run: when the dead run's lock refuses it, it breaks the lock
// as the refusal says and applies again. The apply must converge with
// no --ack. It says whether the lock had to be broken.
func (fx *cloudflareKillFixture) applyAfterKill(t *testing.T, what string) bool {
	t.Helper()
	code, stdout, stderr := cfRun(t, "apply", "--yes", fx.file)
	broke := lockRefused(code, stderr)
	if broke {
		if !strings.Contains(stderr, "site unlock office1") {
			t.Errorf("%s: the lock's refusal does not say how to break it:\n%s", what, stderr)
		}
		if c, o, e := cfRun(t, "unlock", "office1", fx.file, "--ack", "GATE-LOCK-BREAK"); c != exitOK {
			t.Fatalf("%s: unlock exit %d\nstdout:\n%s\nstderr:\n%s", what, c, o, e)
		}
		code, stdout, stderr = cfRun(t, "apply", "--yes", fx.file)
	}
	if code != exitOK {
		t.Errorf("%s: the apply after the kill exit %d, want 0\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
	return broke
}

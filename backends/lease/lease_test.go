package lease

import (
	"context"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/backends/internal/runstate"
	"github.com/site-tools/site/backends/powerdns"
	"github.com/site-tools/site/backends/powerdns/pdnstest"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

func TestMain(m *testing.M) { os.Exit(pdnstest.Main(m)) }

const keyEnv = "PDNS_API_KEY"

// leases is a Reader whose leases the test hands out: an address
// appears after the number of reads given in after.
type leases struct {
	mu    sync.Mutex
	addr  map[string]string
	after map[string]int
	reads map[string]int
}

func (l *leases) Lease(_ context.Context, ref model.LeaseRef) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads[ref.VM]++
	if l.reads[ref.VM] <= l.after[ref.VM] {
		return "", nil
	}
	return l.addr[ref.VM], nil
}

// fixture is a zone on the shared PowerDNS where VM "web" publishes
// www with address "lease", beside a fixed record, and a driver that
// reads lr's leases.
func fixture(t *testing.T, lr Reader, running bool) (*Driver, *graph.Step, *backends.Run, *pdnstest.Server) {
	t.Helper()
	srv := pdnstest.Shared(t)
	zone := strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")) + ".example."
	ref := &model.LeaseRef{Host: "qemu:///system", VM: "web"}
	z := &model.Zone{Tenant: "t1", Name: zone, TTL: 300,
		Provider: model.Provider{PowerDNS: &model.PowerDNS{URL: srv.URL, Server: srv.ServerID, APIKey: model.Credential{Env: keyEnv}}},
		RRsets: []*model.RRset{
			{Name: "fixed." + zone, Type: "A", TTL: 300, Values: []string{"192.0.2.1"}},
			{Name: "www." + zone, Type: "A", TTL: 300, Lease: ref, Writer: model.Writer{Kind: model.WriterVMPublish, Tenant: "t1"}},
		}}
	tenant := &model.Tenant{Name: "t1", VMs: []*model.VM{{Tenant: "t1", Name: "web", Host: ref.Host, Running: running}}}
	step := &graph.Step{ID: graph.ZoneStepID(zone), Phase: plan.PhaseDNS, Tenant: "t1", TenantSpec: tenant, Zone: z}
	run := runstate.Start(backends.NewRun())
	env := map[string]string{keyEnv: srv.APIKey, powerdns.EnvDNSAddr: srv.DNSAddr}
	run.Getenv = func(k string) string { return env[k] }
	d := &Driver{Inner: &powerdns.Driver{Backoff: time.Millisecond}, Leases: lr, Poll: time.Millisecond}
	return d, step, run, srv
}

func keys(cs []plan.Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, string(c.Action)+" "+c.Key+" "+c.Reason)
	}
	slices.Sort(out)
	return out
}

// TestLeaseRecordWaitsThenWrites: while the VM has no lease the plan
// says the address comes with the lease and leaves the live record
// alone (ours, with an old address: not deleted); apply waits for the
// lease, writes its address, and the next plan is empty.
func TestLeaseRecordWaitsThenWrites(t *testing.T) {
	lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1 << 30}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	zone := step.Zone.Name
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.99"},
		Comments: []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("t1")}}})

	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"create dns/" + zone + "/fixed." + zone + "/A ",
		"update dns/" + zone + "/www." + zone + "/A address known after the guest takes its DHCP lease (VM web); apply waits for it",
	}
	if got := keys(sp.Changes); !slices.Equal(got, want) {
		t.Fatalf("got plan %q, want %q", got, want)
	}

	lr.mu.Lock()
	lr.after["web"] = lr.reads["web"] + 3 // three more reads without a lease
	lr.mu.Unlock()
	var said []string
	d.Progress = func(s string) { said = append(said, s) }
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("apply problems %q", res.Problems)
	}
	if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.7"}) {
		t.Errorf("www serves %q, want the leased 192.0.2.7", got)
	}
	if len(said) != 2 || !strings.Contains(said[0], "waiting for the DHCP lease of VM web") || !strings.Contains(said[1], "192.0.2.7") {
		t.Errorf("progress %q, want the wait and the lease", said)
	}
	again, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) > 0 {
		t.Errorf("after apply: got %q, want no changes", keys(again.Changes))
	}
	if again.Fingerprint == sp.Fingerprint {
		t.Error("the fingerprint did not change with the lease: a saved plan from before it would not go stale")
	}
}

// TestLeaseWaitingCreateOrUpdate: a record waiting for its lease shows
// as a create where the zone holds no data at its name and type (a zone
// not created yet, another type at the name, an rrset with only a
// comment), as an update only where live data is there to be replaced,
// ours or not; the change count follows, so the summary line agrees.
// An update shows the live data it replaces as its before (it had none,
// and read as "ttl: (none) → 300"). Apply still writes the leased
// address either way.
func TestLeaseWaitingCreateOrUpdate(t *testing.T) {
	marker := []pdnstest.Comment{{Account: powerdns.MarkerAccount, Content: powerdns.Marker("t1")}}
	for _, tc := range []struct {
		name   string
		noZone bool // the zone itself does not exist yet
		live   []pdnstest.RRset
		want   plan.Action
		before map[string]any // the change's Before, nil for a create
	}{
		{name: "no zone", noZone: true, want: plan.ActionCreate},
		{name: "empty zone", want: plan.ActionCreate},
		{name: "other type at the name", live: []pdnstest.RRset{{Name: "www", Type: "TXT", TTL: 300, Records: []string{`"hello"`}}}, want: plan.ActionCreate},
		{name: "comment only", live: []pdnstest.RRset{{Name: "www", Type: "A", TTL: 300, Comments: []pdnstest.Comment{{Account: "ops", Content: "reserved"}}}}, want: plan.ActionCreate},
		{name: "ours", live: []pdnstest.RRset{{Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.99"}, Comments: marker}}, want: plan.ActionUpdate,
			before: map[string]any{"ttl": uint32(300), "values": []string{"192.0.2.99"}}},
		{name: "foreign", live: []pdnstest.RRset{{Name: "www", Type: "A", TTL: 60, Records: []string{"192.0.2.50", "192.0.2.51"}}}, want: plan.ActionUpdate,
			before: map[string]any{"ttl": uint32(60), "values": []string{"192.0.2.50", "192.0.2.51"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1}, reads: map[string]int{}}
			d, step, run, srv := fixture(t, lr, true)
			zone := step.Zone.Name
			if tc.noZone {
				t.Cleanup(func() { srv.Do(context.Background(), "DELETE", "/zones/"+zone, nil) })
			} else {
				for i := range tc.live {
					tc.live[i].Name += "." + zone
				}
				srv.CreateZone(t, zone, tc.live...)
			}
			sp, err := d.Plan(context.Background(), step, run)
			if err != nil {
				t.Fatal(err)
			}
			key := "dns/" + zone + "/www." + zone + "/A"
			var got []plan.Action
			var before map[string]any
			for _, c := range sp.Changes {
				if c.Key == key {
					got = append(got, c.Action)
					before = c.Before
				}
			}
			if !slices.Equal(got, []plan.Action{tc.want}) {
				t.Fatalf("www A: got %q, want %q; plan %q", got, tc.want, keys(sp.Changes))
			}
			if !reflect.DeepEqual(before, tc.before) {
				t.Errorf("www A: before %#v, want %#v", before, tc.before)
			}
			run.Acked[plan.GateDNSOverwrite] = true // the foreign record is replaced once the address is known
			if _, err := d.Apply(context.Background(), sp, run); err != nil {
				t.Fatal(err)
			}
			if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.7"}) {
				t.Errorf("www serves %q, want the leased 192.0.2.7", got)
			}
			again, err := d.Plan(context.Background(), step, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Changes) > 0 {
				t.Errorf("after apply: got %q, want no changes", keys(again.Changes))
			}
		})
	}
}

// TestLeaseTimeout: a guest that never takes a lease ends apply's wait
// at the timeout with what to do, as a problem of the step (the run
// fails), and the rest of the zone is written: it was held back too, so
// one guest without a lease kept every other record of its zone from
// converging, run after run.
func TestLeaseTimeout(t *testing.T) {
	lr := &leases{after: map[string]int{"web": 1 << 30}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	srv.CreateZone(t, step.Zone.Name)
	d.Timeout = 20 * time.Millisecond
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Apply(context.Background(), sp, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "VM web took no DHCP lease within 20ms, so www."+step.Zone.Name+" stays unwritten") ||
		!strings.Contains(res.Problems[0], "--lease-timeout") {
		t.Fatalf("got problems %q, want the timeout and what to do", res.Problems)
	}
	if got := srv.Query(t, "fixed."+step.Zone.Name, "A"); len(got) != 1 {
		t.Errorf("fixed serves %q, want it written although web took no lease", got)
	}
	if got := srv.Query(t, "www."+step.Zone.Name, "A"); len(got) != 0 {
		t.Errorf("www serves %q, want nothing: its address is not known", got)
	}
}

// TestLeaseStoppedVM: a VM declared not running takes no lease; its
// record is left alone, with a note, and apply does not wait.
func TestLeaseStoppedVM(t *testing.T) {
	lr := &leases{after: map[string]int{"web": 1 << 30}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, false)
	srv.CreateZone(t, step.Zone.Name)
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(sp.Changes); len(got) != 1 || !strings.Contains(got[0], "fixed.") {
		t.Fatalf("got %q, want only the fixed record", got)
	}
	if len(sp.Notes) != 1 || !strings.Contains(sp.Notes[0], "VM web is declared not running") {
		t.Errorf("notes %q, want one about the stopped VM", sp.Notes)
	}
	d.Timeout = time.Hour // a wait would hang the test
	if _, err := d.Apply(context.Background(), sp, run); err != nil {
		t.Fatal(err)
	}
}

// TestLeaseGateAfterWait: an address that, once known, replaces a
// foreign record needs GATE-DNS-OVERWRITE like any other; apply without
// it writes nothing and says so.
func TestLeaseGateAfterWait(t *testing.T) {
	lr := &leases{addr: map[string]string{"web": "192.0.2.7"}, after: map[string]int{"web": 1}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	zone := step.Zone.Name
	srv.CreateZone(t, zone, pdnstest.RRset{Name: "www." + zone, Type: "A", TTL: 300, Records: []string{"192.0.2.50"}})
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Apply(context.Background(), sp, run)
	if err == nil || !strings.Contains(err.Error(), "--ack "+string(plan.GateDNSOverwrite)) {
		t.Fatalf("got %v, want the missing %s", err, plan.GateDNSOverwrite)
	}
	if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.50"}) {
		t.Errorf("www serves %q, want the foreign record untouched", got)
	}
	run.Acked[plan.GateDNSOverwrite] = true
	if _, err := d.Apply(context.Background(), sp, run); err != nil {
		t.Fatal(err)
	}
	if got := srv.Query(t, "www."+zone, "A"); !slices.Equal(got, []string{"300 192.0.2.7"}) {
		t.Errorf("www serves %q, want 192.0.2.7 once acknowledged", got)
	}
}

// TestLeaseWaitInterrupted: Ctrl-C during the wait (the run
// interrupted; the walk's context lives on) stops it, writing nothing.
func TestLeaseWaitInterrupted(t *testing.T) {
	lr := &leases{after: map[string]int{"web": 1 << 30}, reads: map[string]int{}}
	d, step, run, srv := fixture(t, lr, true)
	srv.CreateZone(t, step.Zone.Name)
	d.Timeout = time.Hour
	sp, err := d.Plan(context.Background(), step, run)
	if err != nil {
		t.Fatal(err)
	}
	d.Progress = func(string) { runstate.Interrupts(run).Interrupt() } // as the wait starts
	_, err = d.Apply(context.Background(), sp, run)
	if !errors.Is(err, backends.ErrInterrupted) || !strings.Contains(err.Error(), "www."+step.Zone.Name+" stays unwritten") {
		t.Fatalf("got %v, want the wait stopped by the interrupt", err)
	}
	if got := srv.Query(t, "fixed."+step.Zone.Name, "A"); len(got) != 0 {
		t.Errorf("fixed serves %q: nothing may be written", got)
	}
}

// TestStay: one name stays, two stay.
func TestStay(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"www.example.test."}, "www.example.test. stays"},
		{[]string{"a.example.test.", "b.example.test."}, "a.example.test., b.example.test. stay"},
	} {
		if got := stay(tc.names); got != tc.want {
			t.Errorf("stay(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

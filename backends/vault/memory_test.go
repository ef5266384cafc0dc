package vault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/site-tools/site/backends"
	"github.com/site-tools/site/compiler/graph"
	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/model"
	"github.com/site-tools/site/compiler/plan"
)

// silentTimeout is the Driver.Timeout these tests use: long enough for a
// loopback Vault to answer, short enough that waiting it out is cheap.
const silentTimeout = 200 * time.Millisecond

// silent is a loopback listener that accepts TCP connections and never
// answers, like an address whose packets are swallowed: a client really
// waits out its timeout there. It hands every accepted connection to
// conns, so a test can count the attempts made on it.
type silent struct {
	url   string
	l     net.Listener
	conns chan net.Conn
}

func newSilent(t *testing.T) *silent {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silent{url: "http://" + l.Addr().String(), l: l, conns: make(chan net.Conn, 64)}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // kept open, never answered
			s.conns <- c
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	})
	return s
}

// accepts returns how many connections the listener has accepted since
// the last call. The kernel may hold a connection the accept loop has
// not taken yet, so it dials one marker connection of its own and counts
// up to it: connections are accepted in the order they were made.
func (s *silent) accepts(t *testing.T) int {
	t.Helper()
	marker, err := net.Dial("tcp", s.l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer marker.Close()
	n := 0
	for c := range s.conns {
		if c.RemoteAddr().String() == marker.LocalAddr().String() {
			return n
		}
		n++
	}
	t.Fatal("listener closed before the marker connection was accepted")
	return 0
}

// refStep is a secret step of vault bao for one key of one path, so
// that one test can plan several secrets of the same store.
func refStep(path string, addrs ...string) *graph.Step {
	step := secretStep(addrs...)
	step.Secret.Ref = model.VaultRef{Vault: "bao", Path: path, Key: "token"}
	step.ID = graph.SecretStepID(step.Secret.Ref)
	return step
}

// TestRunRemembersSilentAddress plans several secrets of one store
// whose first address accepts TCP and never answers. The run waits out
// the timeout there once; the later steps go straight to the address
// that answered, and a new run (with its own Driver, as cmd/site builds
// one per run) observes afresh.
func TestRunRemembersSilentAddress(t *testing.T) {
	tests := []struct {
		name       string
		secrets    int
		runs       int
		concurrent bool
	}{
		{"two secrets, one after the other", 2, 1, false},
		{"three secrets, one after the other", 3, 1, false},
		{"three secrets at once", 3, 1, true},
		{"two runs of two secrets", 2, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newVault(t)
			slow := newSilent(t)
			var steps []*graph.Step
			for i := range tt.secrets {
				path := fmt.Sprintf("dns/provider-%d", i)
				srv.Put("secret", path, map[string]any{"token": testValue})
				steps = append(steps, refStep(path, slow.url, srv.URL))
			}
			for range tt.runs {
				d := &Driver{Timeout: silentTimeout}
				run := newRun(map[string]string{"VAULT_TOKEN": testToken})
				errs := make([]error, len(steps))
				addrs := make([]string, len(steps))
				planStep := func(i int) {
					sp, err := d.Plan(context.Background(), steps[i], run)
					if errs[i] = err; err == nil {
						addrs[i] = detailOf(t, sp).Addr
					}
				}
				if tt.concurrent {
					var wg sync.WaitGroup
					for i := range steps {
						wg.Go(func() { planStep(i) })
					}
					wg.Wait()
				} else {
					for i := range steps {
						planStep(i)
					}
				}
				for i, step := range steps {
					if errs[i] != nil {
						t.Fatalf("Plan %s: %v", step.ID, errs[i])
					}
					if addrs[i] != srv.URL {
						t.Errorf("%s read from %q, want %q", step.ID, addrs[i], srv.URL)
					}
					if readSecret(t, run, step) != testValue {
						t.Errorf("%s: wrong secret recorded", step.ID)
					}
				}
			}
			if got, want := slow.accepts(t), tt.runs; got != want {
				t.Errorf("got %d attempts on the silent address, want %d (once per run)", got, want)
			}
			if got, want := srv.Count("read"), tt.runs*tt.secrets; got != want {
				t.Errorf("got %d reads on the answering address, want %d", got, want)
			}
		})
	}
}

// TestRunBlockedStoreListsEveryAddress: when no address answers, every
// step of the run is blocked with a message that lists every address and
// why it failed, though only the first step dialled them.
func TestRunBlockedStoreListsEveryAddress(t *testing.T) {
	slow, closed := newSilent(t), closedAddr(t)
	d := &Driver{Timeout: silentTimeout}
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	tests := []struct {
		name string
		path string
		want []string
	}{
		{"first step dials every address", "dns/a", []string{
			"tried " + slow.url + ": no answer within 200ms",
			"tried " + closed + ": connect: connection refused"}},
		{"later step reports what the first found", "dns/b", []string{
			"tried " + slow.url + " (earlier in this run, reading secret dns/a#token in mount secret): no answer within 200ms",
			"tried " + closed + " (earlier in this run, reading secret dns/a#token in mount secret): connect: connection refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Plan(context.Background(), refStep(tt.path, slow.url, closed), run)
			var ge *backends.GatedError
			if !errors.As(err, &ge) || ge.Gate != plan.GateSecretUnreachable {
				t.Fatalf("got %v, want a *backends.GatedError for %s", err, plan.GateSecretUnreachable)
			}
			for _, want := range append(tt.want, tt.path+"#token", "VAULT_ADDR", string(plan.GateSecretUnreachable)) {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("got %q, want it to contain %q", err, want)
				}
			}
			if i, j := strings.Index(err.Error(), slow.url), strings.Index(err.Error(), closed); i > j {
				t.Errorf("got %q, want the addresses in the spec's order", err)
			}
		})
	}
	if got := slow.accepts(t); got != 1 {
		t.Errorf("got %d attempts on the silent address, want 1", got)
	}
}

// TestRunTriesAnsweringAddressFirst: once an address has answered, later
// steps ask it first, so neither a refusing nor a sealed address before
// it is asked again, and its final answers stand alone.
func TestRunTriesAnsweringAddressFirst(t *testing.T) {
	sealed, open := newVault(t), newVault(t)
	sealed.Seal(true)
	closed := closedAddr(t)
	d := New()
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	tests := []struct {
		name       string
		path       string
		wantErr    string
		wantSealed int // reads the sealed server has had after this step
	}{
		{"first step walks the list", "dns/cloudflare", "", 1},
		{"second step asks the answering address first", "dns/cloudflare", "", 1},
		{"a final answer from the answering address", "dns/missing", "does not exist at " + open.URL, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := d.Plan(context.Background(), refStep(tt.path, closed, sealed.URL, open.URL), run)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				if k := hint.KindOf(err); k != hint.WriteSecret {
					t.Errorf("hint %v, want write_secret", k)
				}
			} else {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				if got := detailOf(t, sp).Addr; got != open.URL {
					t.Errorf("read from %q, want %q", got, open.URL)
				}
			}
			if got := sealed.Count("read"); got != tt.wantSealed {
				t.Errorf("got %d reads on the sealed address, want %d", got, tt.wantSealed)
			}
		})
	}
}

// TestRunInterruptedLearnsNothing: a step cancelled while it waits on a
// silent address must not make the run believe the address is down, and
// a step cancelled while another holds the store's turn gets no gate.
func TestRunInterruptedLearnsNothing(t *testing.T) {
	srv := newVault(t)
	slow := newSilent(t)
	d := &Driver{Timeout: time.Minute} // only the cancellation ends the wait
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	step := secretStep(slow.url, srv.URL)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-slow.conns // the step is now waiting on the silent address
		cancel()
	}()
	_, err := d.Plan(ctx, step, run)
	var ge *backends.GatedError
	if err == nil || errors.As(err, &ge) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancellation that offers no gate", err)
	}

	mem := d.memory(storeKey("sjc", []string{slow.url, srv.URL}))
	if _, ok := mem.failed[slow.url]; ok {
		t.Errorf("the cancelled attempt was remembered as a failure of %s", slow.url)
	}
	if err := mem.lock(context.Background()); err != nil {
		t.Fatal(err)
	}
	waiting, stop := context.WithCancel(context.Background())
	stop()
	_, err = d.Plan(waiting, step, run)
	mem.unlock()
	if err == nil || errors.As(err, &ge) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want a cancellation that offers no gate", err)
	}
	if got := slow.accepts(t); got != 0 {
		t.Errorf("got %d attempts on the silent address by a step that never had its turn, want 0", got)
	}
}

// TestMovingOnIsSaid: when an address gives nothing and the walk goes on
// to the next, the run hears which address, why, and which is next. An
// address is given up on after 5 s, as long as the first "waiting for"
// message takes, so without this a run fell back to the internal address
// without a word (or after a "waiting" line that never ended). A
// remembered address is not tried again, so it says nothing a second
// time; the lock and the secrets share the memory.
func TestMovingOnIsSaid(t *testing.T) {
	srv := newVault(t)
	slow, closed := newSilent(t), closedAddr(t)
	d := &Driver{Timeout: silentTimeout}
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	var lines []string
	run.Progress = func(line string) { lines = append(lines, line) }
	step := secretStep(slow.url, closed, srv.URL)
	if _, err := d.LockStore(context.Background(), step.Secret.Store, "office1", run, nil); err != nil {
		t.Fatalf("LockStore: %v", err)
	}
	if _, err := d.Plan(context.Background(), step, run); err != nil {
		t.Fatalf("Plan: %v", err)
	}
	want := []string{
		"vault bao: " + slow.url + ": no answer within 200ms; trying " + closed + " next",
		"vault bao: " + closed + ": connect: connection refused; trying " + srv.URL + " next",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestEarlierAttemptSaysWhatItWas: an address this run gave up on is
// not dialled again, and a later message lists it as tried earlier. It
// says what that earlier request was (the read of a tenant's apply lock
// entry, or of another secret) beside its address and why it failed, so
// the message stands alone: site diff reads the lock entry before the
// secret, and its stderr said only "waiting for ... GET
// secret/data/site-locks/sjc".
func TestEarlierAttemptSaysWhatItWas(t *testing.T) {
	slow, closed := newSilent(t), closedAddr(t)
	d := &Driver{Timeout: silentTimeout}
	run := newRun(map[string]string{"VAULT_TOKEN": testToken})
	first := refStep("dns/a", slow.url, closed)
	if _, err := d.LockStore(context.Background(), first.Secret.Store, "sjc", run, nil); err == nil {
		t.Fatal("LockStore: got a store, want none (no address answers)")
	}
	lockRead := "(earlier in this run, reading tenant sjc's apply lock entry: GET secret/data/site-locks/sjc): "
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"dns/a", []string{
			"tried " + slow.url + " " + lockRead + "no answer within 200ms",
			"tried " + closed + " " + lockRead + "connect: connection refused"}},
		// A second secret lists what the lock read found, not the
		// first secret's read, which dialled nothing.
		{"dns/b", []string{
			"tried " + slow.url + " " + lockRead + "no answer within 200ms",
			"tried " + closed + " " + lockRead + "connect: connection refused"}},
	} {
		_, err := d.Plan(context.Background(), refStep(tc.path, slow.url, closed), run)
		if err == nil {
			t.Fatalf("Plan %s: got no error, want none of the addresses to answer", tc.path)
		}
		for _, want := range tc.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Plan %s: got\n%s\nwant it to contain %q", tc.path, err, want)
			}
		}
	}
	if got := slow.accepts(t); got != 1 {
		t.Errorf("got %d attempts on the silent address, want 1 (the lock read's)", got)
	}
}

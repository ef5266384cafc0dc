package lock

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/site-tools/site/compiler/hint"
	"github.com/site-tools/site/compiler/visible"
)

// Holder says who holds (or asks for) a lock.
type Holder struct {
	ID      string    `json:"id"` // random, unique per run
	Tenant  string    `json:"tenant"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Start   time.Time `json:"start"`
	Command string    `json:"command"`
	Expires time.Time `json:"expires"` // the lease: past it, the holder is taken for dead
	// State is "claim" while a run is still deciding whether it holds a
	// store that has no compare-and-swap (PowerDNS metadata), "held"
	// once it does.
	State string `json:"state,omitempty"`
}

// Claim and Held are the values of Holder.State.
const (
	Claim = "claim"
	Held  = "held"
)

// NewHolder describes this process asking for tenant's lock for command.
func NewHolder(tenant, command string, now time.Time) Holder {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (Go 1.24+)
	return Holder{ID: strings.ToUpper(hex.EncodeToString(id[:])), Tenant: tenant, Host: host, PID: os.Getpid(),
		Start: now.UTC().Truncate(time.Second), Command: command}
}

// String names the holder the way an operator finds it: host, pid, start
// time, command and when its lease runs out. Host and command are what
// a store said, which need not be what site wrote (a file anyone could
// write, an entry an API client wrote): they are shown through
// visible.Short, so a newline in them never starts a line of its own (a
// line starting ::error:: in a pull-request check's log is a workflow
// command).
func (h Holder) String() string {
	return fmt.Sprintf("host %s, pid %d, started %s, command \"%s\", lease until %s",
		visible.Short(h.Host), h.PID, h.Start.UTC().Format(time.RFC3339), visible.Short(strings.ReplaceAll(h.Command, `"`, `\"`)), h.Expires.UTC().Format(time.RFC3339))
}

// validID is the form of a holder's ID as NewHolder makes it.
var validID = regexp.MustCompile(`^[0-9A-F]{16}$`)

// ValidID reports whether id is one NewHolder could have made. A
// store's entry whose ID is anything else is not a site lock: an ID is
// an opaque token, compared and written back as it is, and never a part
// of a path or a name built from what a store said.
func ValidID(id string) bool { return validID.MatchString(id) }

// Live reports whether h's lease still runs at now.
func (h Holder) Live(now time.Time) bool { return now.Before(h.Expires) }

// HeldError is a lock another run holds.
type HeldError struct {
	Tenant string
	Holder Holder
	Where  string
	Waited time.Duration
}

func (e *HeldError) Error() string {
	waited := "--lock-timeout is 0"
	if e.Waited > 0 {
		waited = fmt.Sprintf("waited %s (--lock-timeout)", e.Waited)
	}
	return fmt.Sprintf("%s; %s: %s", Busy(e.Tenant, e.Holder, e.Where), waited, e.Hint().Render())
}

// Hint is a held lock's advice: wait for its run, or break the lock.
func (e *HeldError) Hint() hint.Hint {
	return hint.Hint{Kind: hint.WaitOrUnlock, Tenant: e.Tenant, Claim: e.Holder.State == Claim}
}

// Busy says what keeps a run from tenant's lock: another run applying
// the tenant (a hold in where), or one taking the lock (a claim), which
// is also what a run cut off half-way through taking it leaves behind
// until its lease ends. A claim told as an apply sent the operator
// looking for a run that was not there.
func Busy(tenant string, other Holder, where string) string {
	if other.State == Claim {
		return fmt.Sprintf("tenant %s's apply lock is being taken by another run (%s), whose claim in %s was not followed by a hold: a run cut off while taking the lock leaves its claim behind, having changed nothing, until its lease runs out at %s",
			tenant, other, where, other.Expires.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("tenant %s is being applied by another run (%s) holding %s", tenant, other, where)
}

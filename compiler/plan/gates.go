package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// gateMeanings says in a few words what acknowledging each gate allows.
// Every gate in the catalogue has an entry; ParseGate accepts only these,
// so a gate added to the catalogue needs its entry here too.
var gateMeanings = map[Gate]string{
	GateDNSOverwrite:      "replace DNS data that site did not write",
	GateDNSDeleteMany:     "delete more of a zone's records than the threshold allows",
	GateDNSUpdateMany:     "update more of a zone's records than the threshold allows",
	GateVMRestart:         "restart a running guest so pending changes take effect (an outage)",
	GateVMStop:            "stop a running guest",
	GateVMDestroy:         "destroy a VM and its data, or shut a running one down to rename it",
	GateVMDiskResize:      "grow a VM's disk volume (the guest must grow its file system)",
	GateVMDiskRebase:      "recreate a VM's disk from its new base image (the disk's data is lost)",
	GateNetDestroy:        "destroy a network",
	GateSecretUnreachable: "defer the steps whose secret cannot be read, and go on with the rest",
	GateDNSDisown:         "remove site's owner markers from a zone's records (site disown)",
	GateLockBreak:         "break a tenant's apply lock (site unlock), even if its holder still runs",
}

// deferring are the gates that defer a step rather than allow one of its
// changes: what a saved plan may record with its options (Options.Acks).
var deferring = map[Gate]bool{GateSecretUnreachable: true}

// Defers reports whether acknowledging g defers steps (leaves them out
// and goes on with the rest) rather than allowing a change.
func (g Gate) Defers() bool { return deferring[g] }

// Meaning says what acknowledging g allows, or "" for a gate outside the
// catalogue.
func (g Gate) Meaning() string { return gateMeanings[g] }

// Catalogue lists every known gate, sorted.
func Catalogue() []Gate {
	out := make([]Gate, 0, len(gateMeanings))
	for g := range gateMeanings {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ParseGate checks an --ack value against the catalogue. Gate names are
// matched exactly: a script that acknowledges a misspelt gate must fail
// rather than silently acknowledge nothing.
func ParseGate(s string) (Gate, error) {
	g := Gate(s)
	if _, ok := gateMeanings[g]; ok {
		return g, nil
	}
	names := make([]string, 0, len(gateMeanings))
	for _, k := range Catalogue() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown gate %q: acknowledge one of %s", s, strings.Join(names, ", "))
}

// WaitingGates returns the gates the stuck steps wait for, sorted, or
// nil when one of them has none (no acknowledgement would plan it).
func WaitingGates(stuck []Blocked) []Gate {
	var gates []Gate
	for _, b := range stuck {
		if b.Gate == "" {
			return nil
		}
		if !slices.Contains(gates, b.Gate) {
			gates = append(gates, b.Gate)
		}
	}
	slices.Sort(gates)
	return gates
}

// JoinGates names gates as a message does: "A", "A and B", "A, B and C";
// none is "".
func JoinGates(gates []Gate) string {
	s := make([]string, len(gates))
	for i, g := range gates {
		s[i] = string(g)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

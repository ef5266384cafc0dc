package plan

import (
	"fmt"
	"strings"

	"github.com/site-tools/site/compiler/spelling"
)

// Which command acknowledges which gate. Every gate in the catalogue is
// one a plan's change can need (apply's; diff takes the same --ack, to
// plan as apply would), except those a command of its own guards.
var ownGates = map[Gate]string{
	GateDNSDisown: "disown",
	GateLockBreak: "unlock",
}

// GatesOf lists, sorted, the gates command (apply, diff, disown,
// unlock, undo) takes with --ack.
func GatesOf(command string) []Gate {
	var out []Gate
	for _, g := range Catalogue() {
		if usesGate(command, g) {
			out = append(out, g)
		}
	}
	return out
}

func usesGate(command string, g Gate) bool {
	if own, ok := ownGates[g]; ok {
		return own == command
	}
	return command == "apply" || command == "diff" || command == "undo"
}

// gateUsers names the commands that take g, as the user types them.
func gateUsers(g Gate) string {
	if own, ok := ownGates[g]; ok {
		return "site " + own
	}
	return "site apply and site diff"
}

// ParseAck checks one --ack value of command. A misspelt gate, or one
// only another command uses (site apply --ack GATE-LOCK-BREAK), is
// refused: either would otherwise acknowledge nothing, silently, and be
// repeated in the command site prints to acknowledge the gates missing.
func ParseAck(command, s string) (Gate, error) {
	takes := GatesOf(command)
	g, err := ParseGate(s)
	if err != nil {
		up, uerr := ParseGate(strings.ToUpper(s))
		if uerr != nil {
			if near := nearestGate(s, takes); near != "" {
				return "", fmt.Errorf("--ack: unknown gate %q: did you mean %s? (site %s takes %s)", s, near, command, oneOf(takes))
			}
			return "", fmt.Errorf("--ack: unknown gate %q: site %s takes %s", s, command, oneOf(takes))
		}
		if usesGate(command, up) {
			return "", fmt.Errorf("--ack %s: gate ids are upper case: --ack %s", s, up)
		}
		g = up
	}
	if !usesGate(command, g) {
		return "", fmt.Errorf("--ack %s: that gate is for %s, and site %s never uses it: drop it (site %s takes %s)", s, gateUsers(g), command, command, oneOf(takes))
	}
	return g, nil
}

// AcksGate checks every --ack value of command (ParseAck) and says
// whether g is among them: for a command with one gate (site disown,
// site unlock), which changes nothing without it.
func AcksGate(command string, acks []string, g Gate) (bool, error) {
	acked := false
	for _, a := range acks {
		got, err := ParseAck(command, a)
		if err != nil {
			return false, err
		}
		acked = acked || got == g
	}
	return acked, nil
}

// oneOf lists gates: "GATE-A", or "one of GATE-A, GATE-B".
func oneOf(gates []Gate) string {
	names := make([]string, len(gates))
	for i, g := range gates {
		names[i] = string(g)
	}
	if len(names) == 1 {
		return names[0]
	}
	return "one of " + strings.Join(names, ", ")
}

// nearestGate is the gate of gates a misspelt s most likely meant, by
// the rule every "did you mean" of site follows (spelling.Nearest), or
// "" when none is near.
func nearestGate(s string, gates []Gate) Gate {
	names := make([]string, len(gates))
	for i, g := range gates {
		names[i] = string(g)
	}
	return Gate(spelling.Nearest(s, names))
}

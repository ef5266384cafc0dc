package plan

import (
	"fmt"
	"strings"
)

// ParseSettings checks the settings a command line gives (command's
// --ack, --restart, --delete-threshold, --update-threshold) and returns
// them over the defaults. An unknown gate, or another command's, is
// refused: a misspelt ack would otherwise be silently ignored.
func ParseSettings(command string, acks, restarts []string, deletePercent, updatePercent int) (Settings, error) {
	s := DefaultSettings()
	for _, a := range acks {
		g, err := ParseAck(command, a)
		if err != nil {
			return Settings{}, err
		}
		s.Acked[g] = true
	}
	for _, r := range restarts {
		tenant, vm, ok := strings.Cut(r, "/")
		if !ok || tenant == "" || vm == "" || strings.Contains(vm, "/") {
			return Settings{}, fmt.Errorf("--restart %q: name a VM as TENANT/VM, e.g. --restart office1/files", r)
		}
		s.Restart[r] = true
	}
	s.DeleteManyPercent, s.UpdateManyPercent = deletePercent, updatePercent
	for _, t := range s.Thresholds() {
		if t.Value < 0 || t.Value > 100 {
			return Settings{}, fmt.Errorf("--%s %d: use a percentage from 0 to 100", t.Flag, t.Value)
		}
	}
	return s, nil
}

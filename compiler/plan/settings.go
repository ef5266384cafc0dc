package plan

import (
	"maps"
	"slices"
)

// Settings are what a run is told besides its scope that changes what
// it plans and may do: the gates acknowledged, the thresholds of the
// "many at once" gates and the guests to restart. One value serves the
// whole run: the engine's backends.Run embeds it (drivers read it
// there), site diff records it in a saved plan (Saved) and site apply
// --plan takes it back (Options.Settings).
type Settings struct {
	// Acked are the gates acknowledged (--ack).
	Acked map[Gate]bool
	// DeleteManyPercent and DeleteManyMin set when deletes in one zone
	// need GATE-DNS-DELETE-MANY: more than Percent of our RRsets in a zone
	// holding at least Min of them (and in any zone, all of ours or more
	// than half of 3 or more, unless Percent is 100; see dnsplan).
	DeleteManyPercent int
	DeleteManyMin     int
	// UpdateManyPercent sets when updates of our RRsets in one zone need
	// GATE-DNS-UPDATE-MANY: more than Percent of them in a zone holding
	// at least DeleteManyMin (the same floor as deletes; see dnsplan).
	UpdateManyPercent int
	// Restart lists "tenant/vm" names the user asked to restart so that
	// pending changes take effect.
	Restart map[string]bool
}

// The default GATE-DNS-DELETE-MANY and GATE-DNS-UPDATE-MANY thresholds
// (see Settings): site apply --delete-threshold and --update-threshold
// change the percentages (30 %, octoDNS's own for updates).
const (
	DefaultDeleteManyPercent = 30
	DefaultDeleteManyMin     = 10
	DefaultUpdateManyPercent = 30
)

// DefaultSettings acknowledge nothing, restart nothing and hold the
// default thresholds.
func DefaultSettings() Settings {
	return Settings{Acked: map[Gate]bool{}, Restart: map[string]bool{},
		DeleteManyPercent: DefaultDeleteManyPercent, DeleteManyMin: DefaultDeleteManyMin, UpdateManyPercent: DefaultUpdateManyPercent}
}

// Saved is what a saved plan records of s (see Options): the thresholds
// and restarts, which change what is planned, and of the acks those
// that deferred a step in blocked, as only those change what it shows.
func (s Settings) Saved(blocked []Blocked) *Options {
	update := s.UpdateManyPercent
	o := &Options{DeleteThreshold: s.DeleteManyPercent, UpdateThreshold: &update, Restart: slices.Sorted(maps.Keys(s.Restart))}
	for _, b := range blocked {
		if b.Gate != "" && s.Acked[b.Gate] && !slices.Contains(o.Acks, b.Gate) {
			o.Acks = append(o.Acks, b.Gate)
		}
	}
	slices.Sort(o.Acks)
	return o
}

// Settings are the settings a plan saved with o was made with; a plan
// saved before --update-threshold was planned with its default.
func (o *Options) Settings() Settings {
	s := DefaultSettings()
	s.DeleteManyPercent = o.DeleteThreshold
	if o.UpdateThreshold != nil {
		s.UpdateManyPercent = *o.UpdateThreshold
	}
	for _, r := range o.Restart {
		s.Restart[r] = true
	}
	for _, g := range o.Acks {
		s.Acked[g] = true
	}
	return s
}

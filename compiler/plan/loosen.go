package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// Threshold is one of the percentages that move a "many at once" gate,
// as site diff and site apply take it: a flag.
type Threshold struct {
	Flag    string // delete-threshold, update-threshold
	Value   int
	Default int // apply's
	Gate    Gate
	Verb    string // what the gate counts, for messages: "deleted"
}

// Thresholds lists the thresholds of s, each with its flag, so that
// each is checked, echoed and held to a saved plan the same way.
func (s Settings) Thresholds() []Threshold {
	return []Threshold{
		{"delete-threshold", s.DeleteManyPercent, DefaultDeleteManyPercent, GateDNSDeleteMany, "deleted"},
		{"update-threshold", s.UpdateManyPercent, DefaultUpdateManyPercent, GateDNSUpdateMany, "updated"},
	}
}

// Loosening lists the options of a saved plan o that let apply do what
// it would not with its defaults, where apply's command line (the flags
// given says it was given, acks) does not give the same: each as what it
// does, and the words that give it. A --delete-threshold
// (--update-threshold) above the default lets more deletes (updates)
// pass without GATE-DNS-DELETE-MANY (GATE-DNS-UPDATE-MANY); a --restart
// makes a pending change a restart, which a GATE-VM-RESTART
// acknowledged for another guest would then allow; a deferring ack
// makes apply go on without the steps it defers, where it would stop.
// The scope (PATH, --only, --target) only narrows what is done, and a
// lower threshold only gates more.
func (o *Options) Loosening(given func(flag string) bool, acks []string) (what, add []string) {
	for _, t := range o.Settings().Thresholds() {
		if t.Value > t.Default && !given(t.Flag) {
			what = append(what, fmt.Sprintf("--%s %d (more of a zone's records %s without %s than apply's %d)", t.Flag, t.Value, t.Verb, t.Gate, t.Default))
			add = append(add, "--"+t.Flag, strconv.Itoa(t.Value))
		}
	}
	if len(o.Restart) > 0 && !given("restart") {
		guests := "that guest"
		if len(o.Restart) > 1 {
			guests = "those guests"
		}
		what = append(what, fmt.Sprintf("%s (restarts %s when %s is acknowledged)", DescribeRestarts(o.Restart), guests, GateVMRestart))
		add = append(add, DescribeRestarts(o.Restart))
	}
	for _, g := range o.Acks {
		if !slices.Contains(acks, string(g)) {
			what = append(what, fmt.Sprintf("--ack %s (goes on without the steps it defers, where apply stops)", g))
			add = append(add, "--ack", string(g))
		}
	}
	return what, add
}

// CheckAcks holds the acks a saved plan (in file) records to the rules
// of apply's --ack, so that an edited plan cannot slip in an ack apply
// would refuse (another command's gate, a misspelt one), and takes only
// those that defer a step, as diff records no other: a plan file is
// anyone's to write (a pull request may add one), and a gate of the
// changes themselves is acknowledged on apply's command line.
func (o *Options) CheckAcks(file string) error {
	for _, g := range o.Acks {
		if _, err := ParseAck("apply", string(g)); err != nil {
			return fmt.Errorf("--plan %s records an ack site apply cannot take (%v): save the plan again with site diff --out", file, err)
		}
		if !g.Defers() {
			return fmt.Errorf("--plan %s records the ack %s, which allows changes rather than deferring steps, and site diff --out never records one: a plan's changes are acknowledged on apply's command line (--ack %s); save the plan again with site diff --out", file, g, g)
		}
	}
	return nil
}

// DescribeRestarts says restarts as the flags that give them.
func DescribeRestarts(restarts []string) string {
	return describeFlags("--restart", restarts, "no --restart")
}

// DescribeTargets says a plan's --target patterns as the flags that
// give them.
func DescribeTargets(targets []string) string {
	return describeFlags("--target", targets, "every step")
}

// DescribeOnly says a plan's phases as the --only flag that gives them.
func DescribeOnly(phases []Phase) string {
	if len(phases) == 0 {
		return "every phase"
	}
	s := make([]string, len(phases))
	for i, p := range phases {
		s[i] = string(p)
	}
	return "--only " + strings.Join(s, ",")
}

// describeFlags repeats flag before each value, shell-quoted; none
// when there is no value.
func describeFlags(flag string, values []string, none string) string {
	if len(values) == 0 {
		return none
	}
	flags := make([]string, len(values))
	for i, v := range values {
		flags[i] = flag + " " + words.ShellQuote(v)
	}
	return strings.Join(flags, " ")
}

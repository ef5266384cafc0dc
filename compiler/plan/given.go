package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/site-tools/site/compiler/words"
)

// ReadSaved reads the plan site diff --out saved at path (site apply
// --plan), refusing one that records no spec or options, or acks that
// break their rules (Options.CheckAcks).
func ReadSaved(path string) (*Plan, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--plan %s: no such file; save a plan first with: site diff --out %s PATH ...", path, words.ShellQuote(path))
	}
	if err != nil {
		return nil, fmt.Errorf("--plan: %w", err)
	}
	defer f.Close()
	p, err := ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", path, err)
	}
	if p.Spec == nil || p.Options == nil {
		return nil, fmt.Errorf("--plan %s records no spec or options (not saved by site diff --out?): save it with site diff --out %s PATH ...", path, words.ShellQuote(path))
	}
	// The plan's acks are added to the command line's, held to the
	// same rules.
	if err := p.Options.CheckAcks(path); err != nil {
		return nil, err
	}
	return p, nil
}

// Given is what apply's command line adds to a saved plan: each part
// must agree with what the plan was saved with, or be left out.
type Given struct {
	File     string                 // --plan, for messages
	Paths    []string               // PATH; none when not given
	Only     string                 // --only as written; "" when not given
	Phases   []Phase                // --only parsed
	Targets  []string               // --target, sorted, without repeats
	Restarts []string               // --restart as written
	Changed  func(flag string) bool // whether a flag was given
	Settings Settings               // the thresholds as given
	Acks     []string               // --ack
}

// CheckGiven refuses what g says that p was not saved with, and what p
// loosens (Options.Loosening) without g saying it too: a plan file is
// anyone's to write.
func (p *Plan) CheckGiven(g Given) error {
	differs := func(given, was string) error {
		return fmt.Errorf("%s differs from what the plan %s was saved with (%s): drop it, or run site diff --out again with it", given, g.File, was)
	}
	restarts := slices.Compact(slices.Sorted(slices.Values(g.Restarts)))
	switch {
	case len(g.Paths) > 0 && !slices.Equal(g.Paths, p.Spec.Paths):
		return differs("PATH "+strings.Join(g.Paths, " "), "PATH "+strings.Join(p.Spec.Paths, " "))
	case g.Only != "" && !slices.Equal(g.Phases, p.Only):
		return differs("--only "+g.Only, DescribeOnly(p.Only))
	case len(g.Targets) > 0 && !slices.Equal(g.Targets, p.Targets):
		return differs(DescribeTargets(g.Targets), DescribeTargets(p.Targets))
	case g.Changed("restart") && !slices.Equal(restarts, p.Options.Restart):
		return differs(DescribeRestarts(g.Restarts), DescribeRestarts(p.Options.Restart))
	}
	for i, was := range p.Options.Settings().Thresholds() {
		if t := g.Settings.Thresholds()[i]; g.Changed(t.Flag) && t.Value != was.Value {
			return differs("--"+t.Flag+" "+strconv.Itoa(t.Value), "--"+t.Flag+" "+strconv.Itoa(was.Value))
		}
	}
	if what, add := p.Options.Loosening(g.Changed, g.Acks); len(what) > 0 {
		return fmt.Errorf("the plan %s was saved with %s, and a plan file is anyone's to write (a pull request may add one), so apply takes what loosens its checks only from its own command line: add %s to apply's command line, or save the plan again without it", g.File, strings.Join(what, " and "), strings.Join(add, " "))
	}
	return nil
}

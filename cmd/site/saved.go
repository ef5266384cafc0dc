package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/site-tools/site/compiler"
	"github.com/site-tools/site/compiler/plan"
)

// This file makes a saved plan self-contained: site diff --out records
// the spec paths, a hash of every spec file and the options that shaped
// the plan; site apply --plan takes them from the plan and refuses it
// when a spec file changed since. diff records them with
// compiler.HashSpec before it loads the specs, so an edit made while it
// runs makes the plan stale rather than slipping in unseen.

// readSaved reads --plan (plan.ReadSaved) and checks that what the
// command line adds (PATH, --only, --target, --restart, the thresholds)
// agrees with what the plan was saved with (plan.CheckGiven), and that
// its spec files are unchanged; apply then takes the plan's.
func (o applyOptions) readSaved(flags *pflag.FlagSet, args []string, phases []plan.Phase, targets []string) (*plan.Plan, error) {
	saved, err := plan.ReadSaved(o.planFile)
	if err != nil {
		return nil, err
	}
	if err := saved.CheckGiven(plan.Given{File: o.planFile, Paths: args, Only: o.only, Phases: phases, Targets: targets,
		Restarts: o.restarts, Changed: flags.Changed, Acks: o.acks,
		Settings: plan.Settings{DeleteManyPercent: o.deleteThreshold, UpdateManyPercent: o.updateThreshold}}); err != nil {
		return nil, err
	}
	if err := o.checkSavedConfig(saved.Spec.Paths); err != nil {
		return nil, err
	}
	config, paths, err := specInput(saved.Spec.Paths)
	if err != nil {
		return nil, fmt.Errorf("the plan %s was saved from %s, whose site.cue cannot be found now (%v): run site apply from the directory site diff ran in, or save the plan again", o.planFile, strings.Join(saved.Spec.Paths, " "), err)
	}
	files, err := compiler.Inputs(config, paths)
	if err != nil {
		return nil, fmt.Errorf("the plan %s was saved from %s, which cannot be read now (%v): run site apply from the directory site diff ran in, or save the plan again", o.planFile, strings.Join(saved.Spec.Paths, " "), err)
	}
	if err := saved.Spec.CheckFiles(files); err != nil {
		return nil, err
	}
	return saved, nil
}

// fromSaved takes the options a saved plan was made with as if they
// were flags, so that they are checked and echoed as flags are.
func (f *planFlags) fromSaved(o *plan.Options) {
	s := o.Settings()
	f.restarts, f.deleteThreshold, f.updateThreshold = o.Restart, s.DeleteManyPercent, s.UpdateManyPercent
}

// checkSavedConfig refuses a plan whose paths would choose the
// operator's file. Without --config, site reads the site.cue of the
// current directory or its parents, else the one beside the paths; a
// plan's paths come from the file, which is anyone's to write, so the
// one beside them is taken only where it really lies in the current
// directory's tree, as for site apply run there with paths of its own
// tree. /tmp/evil/tenants/x.cue, or a link out of the tree, would have
// apply read /tmp/evil/site.cue and reach what it names with the
// runner's credentials.
func (o applyOptions) checkSavedConfig(paths []string) error {
	if configFlag != "" {
		return nil
	}
	shown, err := compiler.ConfigOutside(paths)
	if err != nil || shown == "" {
		return err
	}
	return fmt.Errorf("the plan %s names %s, beside which site would read %s, outside the current directory's tree and its parents; a plan file is anyone's to write, so it does not choose the operator's file: name it with --config FILE, or run site apply --plan where site.cue is", o.planFile, strings.Join(paths, " "), shown)
}

// savedPlanArg is the first of args that is a plan saved by site diff
// --out rather than a spec, or "" when none is. terraform apply takes
// its saved plan as an argument; read as a spec, it would only be "not
// a .cue file", which does not say where a plan goes.
func savedPlanArg(args []string) string {
	for _, a := range args {
		if filepath.Ext(a) == ".cue" || strings.HasSuffix(a, "...") {
			continue
		}
		if plan.IsSavedFile(a) {
			return a
		}
	}
	return ""
}

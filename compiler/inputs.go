package compiler

import "github.com/site-tools/site/compiler/plan"

// Inputs returns the files Load reads for config and paths, in the order
// it reads them: the operator's file, the named tenant files and their
// neighbours. A saved plan records a hash of each and refuses to be
// applied once one changed. A path that names no spec is a Diagnostics
// error, as Load reports it.
func Inputs(config string, paths []string) ([]string, error) {
	files, diags := expand(paths)
	if len(diags) > 0 {
		return nil, diags
	}
	return append([]string{config}, withoutFile(withSiblings(withoutFile(files, config)), config)...), nil
}

// HashSpec records what the specs at args (./tenants/... when none) and
// the operator's file (configFlag, else found as SpecInput says) are
// now, for a saved plan (plan.Spec). It is nil when they cannot be
// read: loading them reports the same problem with its position.
func HashSpec(configFlag string, args []string) (*plan.Spec, error) {
	config, paths, err := SpecInput(configFlag, args)
	if err != nil {
		return nil, err
	}
	files, err := Inputs(config, paths)
	if err != nil {
		return nil, nil
	}
	return plan.HashSpec(paths, files)
}
